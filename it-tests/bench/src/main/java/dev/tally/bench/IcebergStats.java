package dev.tally.bench;

import dev.tally.stack.LocalStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * A leg's output table as a reader sees it: commits and files from its metadata, and the rows read
 * back (equality deletes applied) summed, to compare with the workload's expectation.
 *
 * @param commits snapshots in the table's history
 * @param dataFiles data files in the current snapshot
 * @param deleteFiles delete files in the current snapshot
 * @param rows rows read back
 * @param transactions sum of {@code transaction_count}
 * @param amountSum sum of {@code total_spent_cents}
 */
record IcebergStats(
    long commits, long dataFiles, long deleteFiles, long rows, long transactions, long amountSum) {

  /** The watermark a commit of Tally's sink records in its snapshot's summary. */
  static final String WATERMARK = "tally.watermark";

  /**
   * A table's current snapshot row by row: each row's totals by its primary key, for a comparison
   * with an expectation kept key by key.
   *
   * @param watermark the newest {@value #WATERMARK} of the snapshot's ancestry ({@link #marker}):
   *     every window ending at or before it is final; {@link Long#MIN_VALUE} while the table has no
   *     commit of Tally's
   * @param rows {@code {total_spent_cents, transaction_count}} by {@link #key}
   * @param duplicateKeys rows whose primary key an earlier row had (upserts must never leave one)
   */
  record Rows(long watermark, Map<String, long[]> rows, long duplicateKeys) {

    /** The currency of a row's key in a table keyed without currency (the seed's). */
    static final String ANY_CURRENCY = "*";

    /** The key of a row: user, currency and window start in epoch milliseconds. */
    static String key(String user, String currency, long windowStartMillis) {
      return user + '|' + currency + '|' + windowStartMillis;
    }
  }

  /**
   * The current rows of {@code namespace.table} as a reader sees them (deletes applied): Tally's
   * table, or a SQL script's, whose {@code window_start} is a timestamp without zone (read as UTC)
   * and which may have no {@code currency} ({@link Rows#ANY_CURRENCY} then).
   */
  static Rows rows(RESTCatalog catalog, String namespace, String table) {
    TableIdentifier id = TableIdentifier.of(namespace, table);
    if (!catalog.tableExists(id)) {
      return new Rows(Long.MIN_VALUE, Map.of(), 0);
    }
    Table t = catalog.loadTable(id);
    Snapshot current = t.currentSnapshot();
    if (current == null) {
      return new Rows(Long.MIN_VALUE, Map.of(), 0);
    }
    long marker = marker(t);
    boolean byCurrency = t.schema().findField("currency") != null;
    Map<String, long[]> rows = new HashMap<>();
    long duplicates = 0;
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(t).useSnapshot(current.snapshotId()).build()) {
      for (Record r : records) {
        String key =
            Rows.key(
                (String) r.getField("user_id"),
                byCurrency ? (String) r.getField("currency") : Rows.ANY_CURRENCY,
                epochMillis(r.getField("window_start")));
        long[] totals = {
          (Long) r.getField("total_spent_cents"), (Long) r.getField("transaction_count")
        };
        if (rows.put(key, totals) != null) {
          duplicates++;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Rows(marker, rows, duplicates);
  }

  /**
   * The newest {@value #WATERMARK} in the ancestry of the table's current snapshot, {@link
   * Long#MIN_VALUE} when none carries one: snapshots that Tally's sink does not commit (its
   * maintenance's compactions and expiries) carry none, and a window final before them stays final
   * (docs/behaviour.md "Completeness").
   */
  static long marker(Table table) {
    for (Snapshot s = table.currentSnapshot(); s != null; ) {
      String value = s.summary().get(WATERMARK);
      if (value != null) {
        return Long.parseLong(value);
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    return Long.MIN_VALUE;
  }

  private static long epochMillis(Object timestamp) {
    return timestamp instanceof OffsetDateTime withZone
        ? withZone.toInstant().toEpochMilli()
        : ((LocalDateTime) timestamp).toInstant(ZoneOffset.UTC).toEpochMilli();
  }

  static IcebergStats read(LocalStack stack, String table) {
    return read(stack, BenchContext.NAMESPACE, table);
  }

  static IcebergStats read(LocalStack stack, String namespace, String table) {
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("bench", stack.catalog().clientProperties());
    try (catalog) {
      TableIdentifier id = TableIdentifier.of(namespace, table);
      if (!catalog.tableExists(id)) {
        return new IcebergStats(0, 0, 0, 0, 0, 0);
      }
      Table t = catalog.loadTable(id);
      Snapshot current = t.currentSnapshot();
      if (current == null) {
        return new IcebergStats(0, 0, 0, 0, 0, 0);
      }
      long commits = 0;
      for (Snapshot ignored : t.snapshots()) {
        commits++;
      }
      long rows = 0;
      long transactions = 0;
      long amountSum = 0;
      try (CloseableIterable<Record> records =
          IcebergGenerics.read(t).select("transaction_count", "total_spent_cents").build()) {
        for (Record record : records) {
          rows++;
          transactions += (Long) record.getField("transaction_count");
          amountSum += (Long) record.getField("total_spent_cents");
        }
      }
      return new IcebergStats(
          commits,
          Long.parseLong(current.summary().getOrDefault("total-data-files", "0")),
          Long.parseLong(current.summary().getOrDefault("total-delete-files", "0")),
          rows,
          transactions,
          amountSum);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
