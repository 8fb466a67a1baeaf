package dev.tally.adapters.iceberg;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Iceberg catalog on the local file system for one test: Hadoop tables in a fresh temporary
 * warehouse, closed and deleted after the test. Register with {@code @RegisterExtension}.
 */
final class LocalCatalog implements BeforeEachCallback, AfterEachCallback {

  private final String fileIo;
  private Path warehouse;
  private HadoopCatalog catalog;

  /** Tables with Hadoop's file IO. */
  LocalCatalog() {
    this(null);
  }

  private LocalCatalog(String fileIo) {
    this.fileIo = fileIo;
  }

  /** Tables whose file IO counts the files created and deleted ({@link CountingFileIO}). */
  static LocalCatalog counting() {
    return new LocalCatalog(CountingFileIO.class.getName());
  }

  /** Tables whose file IO counts files and can hold or fail their closes ({@link GatedFileIO}). */
  static LocalCatalog gated() {
    return new LocalCatalog(GatedFileIO.class.getName());
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    warehouse = Files.createTempDirectory("tally-iceberg-test");
    if (fileIo == null) {
      catalog =
          new HadoopCatalog(new org.apache.hadoop.conf.Configuration(false), warehouse.toString());
    } else {
      catalog = new HadoopCatalog();
      catalog.setConf(new org.apache.hadoop.conf.Configuration(false));
      catalog.initialize(
          "local",
          Map.of(
              CatalogProperties.WAREHOUSE_LOCATION,
              warehouse.toString(),
              CatalogProperties.FILE_IO_IMPL,
              fileIo));
    }
  }

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    catalog.close();
    try (Stream<Path> paths = Files.walk(warehouse)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  /** The warehouse directory, for files a test writes itself. */
  Path warehouse() {
    return warehouse;
  }

  /** A new table {@code ns.t}. */
  Table createTable(Schema schema, PartitionSpec spec, Map<String, String> properties) {
    return createTable("t", schema, spec, properties);
  }

  /** A new table {@code ns.<name>}. */
  Table createTable(
      String name, Schema schema, PartitionSpec spec, Map<String, String> properties) {
    return catalog.createTable(TableIdentifier.of("ns", name), schema, spec, properties);
  }

  /** A new table with the layout the sink gives new tables: schema, spec, properties. */
  Table createSpendingTable(int userIdBuckets) {
    return createSpendingTable("t", userIdBuckets);
  }

  /** As {@link #createSpendingTable(int)}, named {@code ns.<name>}. */
  Table createSpendingTable(String name, int userIdBuckets) {
    return createTable(
        name,
        SpendingTable.SCHEMA,
        SpendingTable.partitionSpec(SpendingTable.SCHEMA, userIdBuckets),
        SpendingTable.tableProperties(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT));
  }
}
