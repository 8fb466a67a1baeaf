package dev.tally.it.iceberg;

import dev.tally.adapters.iceberg.CatalogConfig;
import dev.tally.adapters.iceberg.CatalogType;
import dev.tally.adapters.iceberg.IcebergSinkConfig;
import dev.tally.adapters.iceberg.StorageConfig;
import dev.tally.domain.spending.SpendingAggregate;
import dev.tally.domain.spending.SpendingKey;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.window.EventTimeWindow;
import dev.tally.stack.IcebergRestCatalog;
import dev.tally.stack.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * A real Iceberg REST catalog server on a real S3-compatible store, each in its own JVM, plus the
 * reading side the tests check results with (Iceberg's own generic reader).
 */
final class IcebergRestStack implements AutoCloseable {

  private final ObjectStore store;
  private final IcebergRestCatalog catalog;
  private final RESTCatalog client;

  private IcebergRestStack(ObjectStore store, IcebergRestCatalog catalog) {
    this.store = store;
    this.catalog = catalog;
    this.client = new RESTCatalog();
    client.initialize("reader", catalog.clientProperties());
  }

  static IcebergRestStack start(String testName) {
    Path root;
    try {
      // Under target/, not a @TempDir: the services' logs stay for diagnosis when a test fails.
      root =
          Files.createDirectories(Path.of("target", "local-stack"))
              .resolve(testName + "-" + System.currentTimeMillis());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ObjectStore store = ObjectStore.start(root.resolve("s3"));
    try {
      IcebergRestCatalog catalog = IcebergRestCatalog.start(root.resolve("iceberg-rest"), store);
      // The sink never takes S3 keys as options: S3FileIO asks the AWS SDK's default credentials
      // chain, whose first link is these system properties (in production: the environment or an
      // instance role). The region and checksum settings come from failsafe's argLine.
      System.setProperty("aws.accessKeyId", store.accessKey());
      System.setProperty("aws.secretAccessKey", store.secretKey());
      return new IcebergRestStack(store, catalog);
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /** Sink options for a table in this stack, as the job would configure them. */
  IcebergSinkConfig.Builder sinkConfig(String namespace, String table) {
    return IcebergSinkConfig.builder()
        .catalog(
            CatalogConfig.builder()
                .type(CatalogType.REST)
                .uri(catalog.uri())
                .warehouse(catalog.warehouse())
                .build())
        .storage(StorageConfig.s3(store.endpoint(), true, store.region()))
        .namespace(namespace)
        .table(table);
  }

  /** A catalog client of its own, independent of the sink's. */
  RESTCatalog client() {
    return client;
  }

  Table load(String namespace, String table) {
    return client.loadTable(TableIdentifier.of(namespace, table));
  }

  /** Every row of the table's current snapshot, read with Iceberg's generic reader. */
  static List<SpendingRow> rows(Table table) {
    table.refresh();
    List<SpendingRow> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record r : records) {
        rows.add(
            new SpendingRow(
                (String) r.getField("user_id"),
                (String) r.getField("currency"),
                ((OffsetDateTime) r.getField("window_start")).toInstant(),
                ((OffsetDateTime) r.getField("window_end")).toInstant(),
                (Long) r.getField("total_spent_cents"),
                (Long) r.getField("transaction_count")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Live files of the current snapshot, from its summary: what a reader must open. */
  static FileCounts fileCounts(Table table) {
    table.refresh();
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return new FileCounts(0, 0, 0);
    }
    Map<String, String> summary = snapshot.summary();
    int snapshots = 0;
    for (Snapshot ignored : table.snapshots()) {
      snapshots++;
    }
    return new FileCounts(
        Long.parseLong(summary.getOrDefault(SnapshotSummary.TOTAL_DATA_FILES_PROP, "0")),
        Long.parseLong(summary.getOrDefault(SnapshotSummary.TOTAL_DELETE_FILES_PROP, "0")),
        snapshots);
  }

  static WindowedSpending spending(
      String user, String currency, Instant windowStart, long total, long count) {
    return new WindowedSpending(
        new SpendingKey(user, currency),
        new EventTimeWindow(windowStart.toEpochMilli(), windowStart.toEpochMilli() + 3_600_000),
        new SpendingAggregate(total, count));
  }

  static SpendingRow row(WindowedSpending s) {
    return new SpendingRow(
        s.key().userId(),
        s.key().currency(),
        s.window().start(),
        s.window().end(),
        s.aggregate().totalSpentCents(),
        s.aggregate().transactionCount());
  }

  @Override
  public void close() {
    try {
      client.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      try {
        catalog.close();
      } finally {
        store.close();
      }
    }
  }

  /** One row of the output table. */
  record SpendingRow(
      String userId,
      String currency,
      Instant windowStart,
      Instant windowEnd,
      long totalSpentCents,
      long transactionCount) {}

  /** Live data and delete files of the current snapshot, and the snapshots kept. */
  record FileCounts(long dataFiles, long deleteFiles, int snapshots) {}
}
