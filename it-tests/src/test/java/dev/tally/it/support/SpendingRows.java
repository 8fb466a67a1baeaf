package dev.tally.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Spending rows as the integration tests compare them: an Iceberg table read with Iceberg's own
 * generic reader into a sorted map from (user, currency, window start) to (sum, count), which an
 * oracle or another table can be compared with in one assertion.
 */
public final class SpendingRows {

  private SpendingRows() {}

  /** A row's key: Tally's primary key. */
  public record Key(String userId, String currency, Instant windowStart)
      implements Comparable<Key> {
    @Override
    public int compareTo(Key o) {
      int c = userId.compareTo(o.userId);
      if (c == 0) {
        c = currency.compareTo(o.currency);
      }
      return c != 0 ? c : windowStart.compareTo(o.windowStart);
    }
  }

  /** A row's values. */
  public record Totals(long sum, long count) {

    /** Both added: for building an oracle with {@code Map.merge}. */
    public Totals plus(Totals other) {
      return new Totals(sum + other.sum, count + other.count);
    }
  }

  /** Tally's output table: {@code user_id, currency, window_start} (timestamptz). */
  public static Map<Key, Totals> readTallyTable(Catalog catalog, TableIdentifier id) {
    return read(
        catalog,
        id,
        r ->
            new Key(
                (String) r.getField("user_id"),
                (String) r.getField("currency"),
                ((OffsetDateTime) r.getField("window_start")).toInstant()));
  }

  /**
   * Any table with {@code total_spent_cents} and {@code transaction_count}, its key read by {@code
   * key}; asserts one row per key.
   */
  public static Map<Key, Totals> read(
      Catalog catalog, TableIdentifier id, Function<Record, Key> key) {
    Table table = catalog.loadTable(id);
    Map<Key, Totals> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record r : records) {
        Key k = key.apply(r);
        Totals totals =
            new Totals(
                (Long) r.getField("total_spent_cents"), (Long) r.getField("transaction_count"));
        assertThat(rows.put(k, totals)).as("one row per key in %s: %s", id, k).isNull();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }
}
