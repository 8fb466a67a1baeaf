package dev.tally.it.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** Reads the spending table's current snapshot, or an older one, with Iceberg's generic reader. */
public final class SpendingTableReader {

  /**
   * The rows by primary key, and every key seen more than once (which must never happen: upserts
   * keep one row per key at every snapshot).
   */
  public record Contents(Map<SpendingKey, Totals> rows, List<SpendingKey> duplicateKeys) {
    public static final Contents EMPTY = new Contents(Map.of(), List.of());
  }

  private SpendingTableReader() {}

  /** The table's rows, or {@link Contents#EMPTY} while the table does not exist. */
  public static Contents read(Catalog catalog, TableIdentifier id) {
    if (!catalog.tableExists(id)) {
      return Contents.EMPTY;
    }
    return read(IcebergGenerics.read(catalog.loadTable(id)));
  }

  /** The rows of the table as snapshot {@code snapshotId} of it holds them (time travel). */
  public static Contents read(Table table, long snapshotId) {
    return read(IcebergGenerics.read(table).useSnapshot(snapshotId));
  }

  private static Contents read(IcebergGenerics.ScanBuilder scan) {
    Map<SpendingKey, Totals> rows = new TreeMap<>();
    List<SpendingKey> duplicates = new ArrayList<>();
    try (CloseableIterable<Record> records = scan.build()) {
      for (Record r : records) {
        SpendingKey key =
            new SpendingKey(
                (String) r.getField("user_id"),
                (String) r.getField("currency"),
                ((OffsetDateTime) r.getField("window_start")).toInstant());
        Totals totals =
            new Totals(
                (Long) r.getField("total_spent_cents"), (Long) r.getField("transaction_count"));
        if (rows.put(key, totals) != null) {
          duplicates.add(key);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Contents(rows, duplicates);
  }
}
