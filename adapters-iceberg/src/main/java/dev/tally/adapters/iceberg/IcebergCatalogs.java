package dev.tally.adapters.iceberg;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;

/**
 * Turns {@link IcebergSinkConfig} into Iceberg's serializable {@link CatalogLoader} and {@link
 * TableLoader}: the sink's writers, committer and maintenance tasks each open their own catalog on
 * the task managers from these.
 */
final class IcebergCatalogs {

  /** Iceberg's JDBC catalog, loaded as a custom catalog. */
  static final String JDBC_CATALOG_IMPL = "org.apache.iceberg.jdbc.JdbcCatalog";

  private IcebergCatalogs() {}

  /** All properties the catalog is initialised with, secrets included: never log them. */
  static Map<String, String> properties(IcebergSinkConfig options) {
    Map<String, String> properties = new LinkedHashMap<>(options.catalog().catalogProperties());
    properties.putAll(options.storage().catalogProperties());
    return properties;
  }

  static CatalogLoader catalogLoader(IcebergSinkConfig options) {
    String name = options.catalog().name();
    Map<String, String> properties = properties(options);
    // The loaders take a Hadoop Configuration even for REST + S3FileIO; an empty one without the
    // *-site.xml of whatever host builds the job graph keeps the job reproducible.
    Configuration hadoopConf = new Configuration(false);
    return switch (options.catalog().type()) {
      case HADOOP -> CatalogLoader.hadoop(name, hadoopConf, properties);
      case REST -> CatalogLoader.rest(name, hadoopConf, properties);
      case JDBC -> CatalogLoader.custom(name, properties, hadoopConf, JDBC_CATALOG_IMPL);
    };
  }

  static TableLoader tableLoader(IcebergSinkConfig options) {
    return TableLoader.fromCatalog(catalogLoader(options), options.tableIdentifier());
  }

  /** Closes a catalog loaded for start-up work, and with it its file IO, if it can be closed. */
  static void close(Catalog catalog) {
    if (catalog instanceof Closeable closeable) {
      try {
        closeable.close();
      } catch (IOException e) {
        throw new UncheckedIOException("closing the Iceberg catalog", e);
      }
    }
  }
}
