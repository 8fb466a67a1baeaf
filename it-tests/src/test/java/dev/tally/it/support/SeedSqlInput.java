package dev.tally.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.oracle.Input;
import dev.tally.it.oracle.TopicWriter;
import dev.tally.it.support.SpendingRows.Key;
import dev.tally.it.support.SpendingRows.Totals;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;

/**
 * Input the seed's SQL pipeline has an answer for: one currency, no duplicates, no bad records,
 * nothing late, on the topic its script reads; and the seed's table read back under Tally's key, so
 * a run of {@code examples/sql} can be compared with the rows the input must give.
 */
public final class SeedSqlInput {

  /** The topic the seed's SQL reads, and no other. */
  public static final String TOPIC = "financial-transactions";

  /** The seed's output table. */
  public static final TableIdentifier TABLE =
      TableIdentifier.of("analytics", "user_hourly_spending");

  /** The same-semantics script's output table, keyed by currency too. */
  public static final TableIdentifier SAME_SEMANTICS_TABLE =
      TableIdentifier.of("analytics", "user_hourly_spending_by_currency");

  /** The first window of the input; in the past, as the broker refuses timestamps far ahead. */
  public static final Instant BASE = Instant.parse("2026-01-15T00:00:00Z");

  private static final int USERS = 60;
  private static final int EVENTS = 12_000;
  private static final Duration SPAN = Duration.ofHours(4);
  // The Flink SQL JSON form of TIMESTAMP(3), which the seed's source table reads and Tally reads
  // as UTC.
  private static final DateTimeFormatter SQL_TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

  private SeedSqlInput() {}

  /**
   * Produces four hours of one-currency spending to {@link #TOPIC} (which must exist with {@code
   * partitions} partitions), every record acknowledged; returns the rows it must give.
   */
  public static Map<Key, Totals> produce(String bootstrapServers, int partitions) {
    return produce(bootstrapServers, partitions, USERS, EVENTS);
  }

  /**
   * As {@link #produce(String, int)}, with {@code events} spread evenly over the four hours among
   * {@code users}: many users make many rows per window, hence many timers at each window end.
   */
  public static Map<Key, Totals> produce(
      String bootstrapServers, int partitions, int users, int events) {
    Map<Key, Totals> oracle = new TreeMap<>();
    List<Input> inputs = new ArrayList<>();
    Random random = new Random(7);
    long step = SPAN.toMillis() / events;
    for (int i = 0; i < events; i++) {
      int user = random.nextInt(users);
      String userId = "user-" + user;
      // Up to 4 s out of order within a user's partition: inside both pipelines' 5 s bound.
      long eventTime =
          Math.max(BASE.toEpochMilli(), BASE.toEpochMilli() + i * step - random.nextInt(4_000));
      long amount = 1 + random.nextInt(100_000);
      String value =
          "{\"transaction_id\":\"tx-%d\",\"user_id\":\"%s\",\"amount_cents\":%d,\"currency\":\"EUR\",\"event_timestamp\":\"%s\"}"
              .formatted(i, userId, amount, SQL_TIMESTAMP.format(Instant.ofEpochMilli(eventTime)));
      inputs.add(
          new Input(
              user % partitions,
              userId.getBytes(StandardCharsets.UTF_8),
              value.getBytes(StandardCharsets.UTF_8),
              eventTime,
              null));
      Instant window = Instant.ofEpochMilli(eventTime - Math.floorMod(eventTime, 3_600_000L));
      oracle.merge(new Key(userId, "EUR", window), new Totals(amount, 1), Totals::plus);
    }
    // The one producer of the tests: idempotent, one request in flight (a fresh topic's first
    // batches may be refused), every record acknowledged and the end offsets checked.
    TopicWriter.produce(bootstrapServers, TOPIC, inputs, Duration.ZERO);
    assertThat(oracle).hasSizeGreaterThan(Math.min(users * 3, events / 4));
    return oracle;
  }

  /**
   * The same-semantics script's table under Tally's key: its currency, its zone-less UTC window
   * start.
   */
  public static Map<Key, Totals> readSameSemanticsTable(Catalog catalog) {
    return readSqlTable(catalog, SAME_SEMANTICS_TABLE, r -> (String) r.getField("currency"));
  }

  /** The seed's table, mapped to Tally's key: its one currency, its zone-less UTC window start. */
  public static Map<Key, Totals> readSeedTable(Catalog catalog, TableIdentifier id) {
    return readSqlTable(catalog, id, r -> "EUR");
  }

  private static Map<Key, Totals> readSqlTable(
      Catalog catalog, TableIdentifier id, Function<Record, String> currency) {
    return SpendingRows.read(
        catalog,
        id,
        r ->
            new Key(
                (String) r.getField("user_id"),
                currency.apply(r),
                ((LocalDateTime) r.getField("window_start")).toInstant(ZoneOffset.UTC)));
  }
}
