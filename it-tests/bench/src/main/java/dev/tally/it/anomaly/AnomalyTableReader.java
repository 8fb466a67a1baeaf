package dev.tally.it.anomaly;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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

/**
 * Reads an anomaly table (docs/behaviour.md's columns) with Iceberg's generic reader: the SQL
 * form's, whose mean and deviation are doubles, into the map the oracles give, so one assertion
 * compares them; Tally's, whose mean and deviation are decimals, into the reports the exactly-once
 * verdict counts.
 */
public final class AnomalyTableReader {

  private AnomalyTableReader() {}

  /**
   * The table's current rows by (user, transaction id).
   *
   * @throws IllegalStateException when an identifier has two rows: a doubled anomaly
   */
  public static Map<TransactionKey, Anomaly> read(Catalog catalog, TableIdentifier id) {
    Map<TransactionKey, Anomaly> rows = new TreeMap<>();
    for (AnomalyReport r : scan(catalog.loadTable(id))) {
      // The SQL form's figures are doubles: exact as decimals, so exactly these doubles again.
      Anomaly a =
          new Anomaly(
              r.transactionId(),
              r.userId(),
              r.currency(),
              r.eventTime(),
              r.amountCents(),
              r.baselineCount(),
              r.baselineMeanCents().doubleValue(),
              r.baselineStddevCents().doubleValue(),
              r.score());
      if (rows.put(a.id(), a) != null) {
        throw new IllegalStateException("two rows of one identifier in " + id + ": " + a.id());
      }
    }
    return rows;
  }

  /**
   * Every row of Tally's anomaly table, repeats included (an identifier twice is a doubled
   * anomaly); none while the table does not exist.
   */
  public static List<AnomalyReport> reports(Catalog catalog, TableIdentifier id) {
    return catalog.tableExists(id) ? scan(catalog.loadTable(id)) : List.of();
  }

  private static List<AnomalyReport> scan(Table table) {
    List<AnomalyReport> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record r : records) {
        rows.add(
            new AnomalyReport(
                (String) r.getField("transaction_id"),
                (String) r.getField("user_id"),
                (String) r.getField("currency"),
                instant(r.getField("event_timestamp")),
                (Long) r.getField("amount_cents"),
                (Long) r.getField("baseline_count"),
                decimal(r.getField("baseline_mean_cents")),
                decimal(r.getField("baseline_stddev_cents")),
                (Double) r.getField("score")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Tally's {@code decimal(38, 4)} as it is; the SQL form's {@code double} exactly. */
  private static BigDecimal decimal(Object value) {
    return value instanceof BigDecimal d ? d : new BigDecimal((Double) value);
  }

  /** A {@code timestamptz} as it is; a {@code timestamp} (Flink's {@code TIMESTAMP}) as UTC. */
  private static Instant instant(Object value) {
    return value instanceof OffsetDateTime odt
        ? odt.toInstant()
        : ((LocalDateTime) value).toInstant(ZoneOffset.UTC);
  }
}
