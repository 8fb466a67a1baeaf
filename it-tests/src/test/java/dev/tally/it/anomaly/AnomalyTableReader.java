package dev.tally.it.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Reads an anomaly table (docs/behaviour.md's columns) with Iceberg's generic reader into the map
 * the oracles give, so one assertion compares them.
 */
public final class AnomalyTableReader {

  private AnomalyTableReader() {}

  /** The table's current rows by (user, transaction id); asserts one row per identifier. */
  public static Map<TransactionKey, Anomaly> read(Catalog catalog, TableIdentifier id) {
    Table table = catalog.loadTable(id);
    Map<TransactionKey, Anomaly> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record r : records) {
        Anomaly a =
            new Anomaly(
                (String) r.getField("transaction_id"),
                (String) r.getField("user_id"),
                (String) r.getField("currency"),
                instant(r.getField("event_timestamp")),
                (Long) r.getField("amount_cents"),
                (Long) r.getField("baseline_count"),
                (Double) r.getField("baseline_mean_cents"),
                (Double) r.getField("baseline_stddev_cents"),
                (Double) r.getField("score"));
        assertThat(rows.put(a.id(), a)).as("one row per identifier in %s: %s", id, a.id()).isNull();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** A {@code timestamptz} as it is; a {@code timestamp} (Flink's {@code TIMESTAMP}) as UTC. */
  private static Instant instant(Object value) {
    return value instanceof OffsetDateTime odt
        ? odt.toInstant()
        : ((LocalDateTime) value).toInstant(ZoneOffset.UTC);
  }
}
