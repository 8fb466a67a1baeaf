package dev.tally.it.oracle;

import dev.tally.it.anomaly.AnomalyReport;
import dev.tally.it.anomaly.RawTransaction;
import dev.tally.it.anomaly.SpecAnomalyOracle;
import dev.tally.it.anomaly.TransactionKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A seeded dataset and its oracle: the table and the dead letters docs/behaviour.md defines,
 * computed here from the rules of docs/behaviour.md alone, never from Tally's code.
 *
 * <p>Every verdict is decided by the data, not by timing, so a run with failures must end exactly
 * as a failure-free one:
 *
 * <ul>
 *   <li>Each user's records go to one partition ({@code user % 8}) in production order, so which of
 *       two records with one transaction id comes first is fixed.
 *   <li>Event times run forward over {@link Shape#span()}, each up to 4 s early: out of order
 *       within the 5 s bound of the partition's own watermark, so nothing is ever {@code LATE}.
 *       ({@code LATE} needs a watermark that passed a window, and with partitions read in parallel
 *       when that happens is timing; the topology's MiniCluster test covers {@code LATE}.)
 *   <li>Events at exactly a window's start and at its last millisecond, right after each boundary.
 *   <li>Exact duplicates (dropped) and conflicting duplicates ({@code CONFLICTING_DUPLICATE}) a few
 *       records after their original, in its partition.
 *   <li>Bad records of every reason that data alone decides: {@code MALFORMED}, {@code
 *       MISSING_FIELD}, {@code INVALID_FIELD} (several forms each), {@code FUTURE_TIMESTAMP}
 *       (judged against the record timestamp), and {@code AMOUNT_OVERFLOW} (two amounts of one
 *       window whose sum leaves the 64-bit range).
 *   <li>Oversized records ({@code MALFORMED}): values of 1 MiB + 1 byte, between that and 2 MiB,
 *       and 2 MiB, over the record size limit; and one just under 1 MiB that is no JSON, too large
 *       for a dead-letter producer of 1 MiB requests once the headers are added. Topics for them
 *       need {@link #TOPIC_CONFIG}, and a producer of {@link #MAX_RECORD_BYTES} requests.
 *   <li>Five currencies, refunds, and every accepted timestamp form.
 *   <li>With {@link Shape#historyUsers()}: a sparse history of those users in the 8 days before the
 *       span ({@value #HISTORY_PER_DAY} transactions a day each, in one currency, with refunds and
 *       exact duplicates, and one spike on the last day), and spikes injected into the span (about
 *       one accepted transaction in {@value #SPIKE_ONE_IN}), so that the anomaly rule
 *       (docs/behaviour.md "Anomalies") has full 7-day baselines and anomalies to find ({@link
 *       #anomalies}). The history is produced first, in event-time order: every partition's event
 *       time still only moves forward, so nothing becomes {@code LATE}.
 * </ul>
 *
 * Record timestamps are in the past: the broker refuses timestamps more than an hour ahead of its
 * clock, and test topics need {@code retention.ms=-1} so it never deletes them.
 */
public final class SpendingDataset {

  public static final int PARTITIONS = 8;

  /** The rejection reasons that data alone decides: every dataset of any seed has each one. */
  public static final List<String> REASONS_DATA_DECIDES =
      List.of(
          "MALFORMED",
          "MISSING_FIELD",
          "INVALID_FIELD",
          "FUTURE_TIMESTAMP",
          "CONFLICTING_DUPLICATE",
          "AMOUNT_OVERFLOW");

  /** The largest value in any dataset: 2 MiB. */
  public static final int MAX_RECORD_BYTES = 2 * 1024 * 1024;

  /**
   * The configuration of a topic for a dataset: records kept forever, batches of up to twice the
   * largest record.
   */
  public static final Map<String, String> TOPIC_CONFIG =
      Map.of("retention.ms", "-1", "max.message.bytes", Integer.toString(2 * MAX_RECORD_BYTES));

  /** The record size limit of docs/behaviour.md "Record size": 1 MiB. */
  private static final int RECORD_LIMIT = 1024 * 1024;

  /** Event time of the first event; in the past (see above). */
  public static final Instant BASE = Instant.parse("2026-01-15T00:00:00Z");

  private static final String[] CURRENCIES = {"EUR", "USD", "GBP", "JPY", "CHF"};
  private static final long HOUR = 3_600_000L;
  private static final long DAY = 24 * HOUR;
  private static final DateTimeFormatter OFFSET_FORM =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneOffset.ofHours(2));
  private static final DateTimeFormatter SQL_FORM =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

  /**
   * The dataset's size.
   *
   * @param events base events (bad records and duplicates come on top of them)
   * @param users distinct users
   * @param span event time covered by the base events
   * @param flush one more event per partition six hours after the span: in a streaming run it moves
   *     every partition's watermark past all real windows, while its own window stays open
   * @param historyUsers how many users (the first ones) have a sparse 8-day history before the
   *     span; more than 0 also injects spikes into the span
   */
  public record Shape(int events, int users, Duration span, boolean flush, int historyUsers) {

    public Shape {
      if (historyUsers < 0 || historyUsers > users) {
        throw new IllegalArgumentException("0..users history users: " + historyUsers);
      }
    }

    /** A shape without history and spikes. */
    public Shape(int events, int users, Duration span, boolean flush) {
      this(events, users, span, flush, 0);
    }
  }

  /** Days of history before {@link #BASE}: more than the 7 days of an anomaly baseline. */
  public static final int HISTORY_DAYS = 8;

  /** Transactions a day of each history user. */
  public static final int HISTORY_PER_DAY = 4;

  /** About one accepted transaction in this many of the span is a spike, with history users. */
  public static final int SPIKE_ONE_IN = 2_000;

  /** The smallest spike: far above mean + 4σ of the normal amounts (1..100,000). */
  private static final long SPIKE = 5_000_000;

  private final long seed;
  private final Shape shape;
  private final List<Input> inputs = new ArrayList<>();
  private final Map<SpendingKey, Totals> oracle = new TreeMap<>();
  private final Map<String, Integer> rejectedByReason = new TreeMap<>();
  private final List<RawTransaction> counted = new ArrayList<>();
  private Map<TransactionKey, SpecAnomalyOracle.Verdict> anomalyVerdicts;
  private int exactDuplicates;
  private int historyRecords;
  private int spikes;

  private SpendingDataset(long seed, Shape shape) {
    this.seed = seed;
    this.shape = shape;
  }

  /** Generates the dataset of {@code seed}: the same seed, the same records and oracle. */
  public static SpendingDataset generate(long seed, Shape shape) {
    SpendingDataset d = new SpendingDataset(seed, shape);
    d.fill(new Random(seed));
    return d;
  }

  /** The records, in production order. */
  public List<Input> inputs() {
    return Collections.unmodifiableList(inputs);
  }

  /** The whole table a bounded run ends with (its final watermark closes every window). */
  public Map<SpendingKey, Totals> oracle() {
    return Collections.unmodifiableMap(oracle);
  }

  /** The table a streaming run ends with: every window but the flush windows, never closed. */
  public Map<SpendingKey, Totals> closedWindowsOracle() {
    Map<SpendingKey, Totals> closed = new TreeMap<>(oracle);
    closed.keySet().removeIf(k -> !k.windowStart().isBefore(flushAt()));
    return closed;
  }

  /**
   * The anomalies the contract's rule (docs/behaviour.md "Anomalies", defaults) finds among the
   * accepted, deduplicated transactions (those the table counts) that a watermark of {@code
   * watermark} has decided; {@code Long.MAX_VALUE}, the end of input's, decides all of them.
   */
  public synchronized Map<TransactionKey, AnomalyReport> anomalies(long watermark) {
    if (anomalyVerdicts == null) {
      anomalyVerdicts = SpecAnomalyOracle.defaults().verdicts(counted);
    }
    return SpecAnomalyOracle.reports(anomalyVerdicts, watermark);
  }

  /** The accepted transactions, in production order: what the table counts. */
  public List<RawTransaction> counted() {
    return Collections.unmodifiableList(counted);
  }

  /** Spikes injected (in the history and the span). */
  public int spikes() {
    return spikes;
  }

  /** How many records each reason must reject. */
  public Map<String, Integer> rejectedByReason() {
    return Collections.unmodifiableMap(rejectedByReason);
  }

  /** Exact duplicates in the data: dropped, in neither the table nor the dead letters. */
  public int exactDuplicates() {
    return exactDuplicates;
  }

  public long seed() {
    return seed;
  }

  /** Accepted records the table must count. */
  public long countedRecords() {
    return oracle.values().stream().mapToLong(Totals::count).sum();
  }

  @Override
  public String toString() {
    return "dataset seed "
        + seed
        + ": "
        + inputs.size()
        + " records on "
        + PARTITIONS
        + " partitions, "
        + countedRecords()
        + " counted into "
        + oracle.size()
        + " rows, "
        + exactDuplicates
        + " exact duplicates, "
        + historyRecords
        + " history records, "
        + spikes
        + " spikes, rejected "
        + rejectedByReason;
  }

  private Instant flushAt() {
    return BASE.plus(shape.span()).plus(Duration.ofHours(6));
  }

  private void fill(Random random) {
    long base = BASE.toEpochMilli();
    history(base);
    // Its own sequence, so the other records stay what they were for a seed.
    Random spikeDraws = shape.historyUsers() > 0 ? new Random(seed ^ 0x5B1CE5L) : null;
    long step = Math.max(1, shape.span().toMillis() / shape.events());
    // Duplicates wait a few records (at most ~10 steps, well inside the 5 s bound) in their queue.
    Deque<long[]> pendingAt = new ArrayDeque<>();
    Deque<Input> pending = new ArrayDeque<>();
    // Its own sequence, so the other records stay what they were for a seed.
    Random oversizedSizes = new Random(seed ^ 0x0BADC0FFEEL);
    int fifth = shape.events() / 5;
    int bad = 0;
    for (int i = 0; i < shape.events(); i++) {
      long t = base + i * step;
      while (!pending.isEmpty() && pendingAt.peekFirst()[0] <= i) {
        pendingAt.removeFirst();
        Input dup = pending.removeFirst();
        add(dup.partition(), dup.key(), dup.value(), t, dup.rejected());
      }
      if (i == shape.events() / 2) {
        // Before any branch that ends the iteration early, so every dataset has them.
        overflow(t, random);
      }
      if (i == shape.events() / 3) {
        // The random branch below draws one in 2,000: with 20,000 events, about one seed in
        // 20,000 draws none, so every dataset also gets this one.
        future("fx-" + seed + "-" + i, t);
      }
      if (fifth > 0 && i > 0 && i % fifth == 0 && i / fifth <= 4) {
        oversized(i / fifth, i, t, oversizedSizes);
      }
      int user = random.nextInt(shape.users());
      String userId = "user-" + user;
      int partition = user % PARTITIONS;
      long eventTime = Math.max(base, t - random.nextInt(4_000));
      long hour = t - Math.floorMod(t, HOUR);
      if (t - hour < 4_000 && hour > base && random.nextBoolean()) {
        // Window boundaries: the first millisecond of the new window, or the last of the old one.
        eventTime = random.nextBoolean() ? hour : hour - 1;
      }
      double kind = random.nextDouble();
      if (kind < 0.02) {
        BadRecord b = badRecord(bad++, i, userId, eventTime);
        add(partition, userId, b.value, t, b.reason);
        continue;
      }
      if (kind < 0.0205) {
        // More than an hour after its record timestamp: rejected, never moves the watermark.
        long future = t + HOUR + 1 + random.nextInt(60_000);
        add(
            partition,
            userId,
            json("f-" + seed + "-" + i, userId, 1, "EUR", future, random),
            t,
            "FUTURE_TIMESTAMP");
        continue;
      }
      String txId = "tx-" + seed + "-" + i;
      long amount = 1 + random.nextInt(100_000);
      if (random.nextInt(20) == 0) {
        amount = -amount; // a refund
      }
      if (spikeDraws != null && amount > 0 && spikeDraws.nextInt(SPIKE_ONE_IN) == 0) {
        amount = spike(spikeDraws);
        spikes++;
      }
      String currency = CURRENCIES[random.nextInt(CURRENCIES.length)];
      String value = json(txId, userId, amount, currency, eventTime, random);
      add(partition, userId, value, t, null);
      count(txId, userId, currency, eventTime, amount);
      double dup = random.nextDouble();
      if (dup < 0.03 || dup >= 0.05 && dup < 0.07) {
        boolean exact = dup < 0.03;
        String again = exact ? value : json(txId, userId, amount + 1, currency, eventTime, random);
        exactDuplicates += exact ? 1 : 0;
        pendingAt.addLast(new long[] {i + 1 + random.nextInt(10)});
        pending.addLast(
            new Input(
                partition, bytes(userId), bytes(again), t, exact ? null : "CONFLICTING_DUPLICATE"));
      }
    }
    while (!pending.isEmpty()) {
      Input dup = pending.removeFirst();
      add(dup.partition(), dup.key(), dup.value(), dup.timestamp(), dup.rejected());
    }
    if (shape.flush()) {
      long flush = flushAt().toEpochMilli();
      for (int p = 0; p < PARTITIONS; p++) {
        String userId = "flush-" + p;
        String txId = "flush-" + seed + "-" + p;
        add(p, userId, json(txId, userId, 1, "EUR", flush, null), flush, null);
        count(txId, userId, "EUR", flush, 1);
      }
    }
  }

  private record HistoryRecord(long eventTime, String txId, String userId, long amount) {}

  /**
   * The history of the first {@link Shape#historyUsers()} users over the {@value #HISTORY_DAYS}
   * days before the span, in their currency {@code user % 5}: {@value #HISTORY_PER_DAY} random
   * times a day each, about one in 20 a refund, one spike on the last day, and about one in 10 sent
   * twice in a row (an exact duplicate). Produced in event-time order, so no partition's event time
   * ever goes back, each record's timestamp its event time.
   */
  private void history(long base) {
    Random random = new Random(seed ^ 0x415709L);
    long start = base - HISTORY_DAYS * DAY;
    List<HistoryRecord> records = new ArrayList<>();
    for (int u = 0; u < shape.historyUsers(); u++) {
      String userId = "user-" + u;
      for (int day = 0; day < HISTORY_DAYS; day++) {
        for (int n = 0; n < HISTORY_PER_DAY; n++) {
          long amount = 1 + random.nextInt(100_000);
          if (random.nextInt(20) == 0) {
            amount = -amount; // a refund
          }
          records.add(historyRecord(start, day, userId, n, amount, random));
        }
      }
      long spike = spike(random);
      records.add(historyRecord(start, HISTORY_DAYS - 1, userId, HISTORY_PER_DAY, spike, random));
      spikes++;
    }
    records.sort(Comparator.comparingLong(HistoryRecord::eventTime));
    for (HistoryRecord r : records) {
      int user = Integer.parseInt(r.userId().substring("user-".length()));
      String currency = CURRENCIES[user % CURRENCIES.length];
      String value = json(r.txId(), r.userId(), r.amount(), currency, r.eventTime(), random);
      int copies = random.nextInt(10) == 0 ? 2 : 1;
      for (int c = 0; c < copies; c++) {
        add(user % PARTITIONS, r.userId(), value, r.eventTime(), null);
        historyRecords++;
      }
      exactDuplicates += copies - 1;
      count(r.txId(), r.userId(), currency, r.eventTime(), r.amount());
    }
  }

  /** The n-th record of a history day, at a random time of it. */
  private HistoryRecord historyRecord(
      long start, int day, String userId, int n, long amount, Random random) {
    long eventTime = start + day * DAY + (long) (random.nextDouble() * DAY);
    String txId = "h-" + seed + "-" + userId + "-" + day + "-" + n;
    return new HistoryRecord(eventTime, txId, userId, amount);
  }

  /** A spike's amount: 50 to 100 times the largest normal amount. */
  private static long spike(Random draws) {
    return SPIKE + draws.nextInt((int) SPIKE);
  }

  /** A record of a user of its own whose event time is just over an hour after its timestamp. */
  private void future(String txId, long t) {
    String userId = "ahead-0";
    add(0, userId, json(txId, userId, 1, "EUR", t + HOUR + 1, null), t, "FUTURE_TIMESTAMP");
  }

  /** Per partition, a user whose second amount would overflow its window's total. */
  private void overflow(long t, Random random) {
    for (int p = 0; p < PARTITIONS; p++) {
      String userId = "whale-" + p;
      long big = Long.MAX_VALUE - 1_000_000;
      add(p, userId, json("w1-" + seed + "-" + p, userId, big, "CHF", t, random), t, null);
      count("w1-" + seed + "-" + p, userId, "CHF", t, big);
      add(
          p,
          userId,
          json("w2-" + seed + "-" + p, userId, 2_000_000, "CHF", t, random),
          t,
          "AMOUNT_OVERFLOW");
      add(p, userId, json("w3-" + seed + "-" + p, userId, -5, "CHF", t, random), t, null);
      count("w3-" + seed + "-" + p, userId, "CHF", t, -5);
    }
  }

  /**
   * The n-th oversized record (1..4), of a user of its own on partition {@code n}: a valid
   * transaction padded by an unknown field to its size (over the limit, so the size is its only
   * fault), or, the fourth, just under the limit and not closed.
   */
  private void oversized(int n, int i, long t, Random sizes) {
    int size =
        switch (n) {
          case 1 -> RECORD_LIMIT + 1;
          case 2 -> RECORD_LIMIT + 2 + sizes.nextInt(MAX_RECORD_BYTES - RECORD_LIMIT - 2);
          case 3 -> MAX_RECORD_BYTES;
          default -> RECORD_LIMIT - 1 - sizes.nextInt(512);
        };
    String userId = "big-" + n;
    String head =
        json("o-" + seed + "-" + i, userId, 1, "EUR", t, null).replaceFirst("}$", "")
            + ",\"padding\":\"";
    String tail = n == 4 ? "\"" : "\"}";
    int padding = size - bytes(head).length - bytes(tail).length;
    byte[] value = bytes(head + "p".repeat(padding) + tail);
    add(n % PARTITIONS, userId, value, t, "MALFORMED");
  }

  private record BadRecord(byte[] value, String reason) {}

  /** The n-th bad record: every form in turn, so each one is in every large enough dataset. */
  private BadRecord badRecord(int n, int i, String userId, long eventTime) {
    String id = "b-" + seed + "-" + i;
    String ts = "\"" + Instant.ofEpochMilli(eventTime) + "\"";
    String u = "\"" + userId + "\"";
    return switch (n % 17) {
      case 0 -> new BadRecord(bytes("{not json"), "MALFORMED");
      case 1 -> new BadRecord(bytes("[1,2,3]"), "MALFORMED");
      case 2 ->
          new BadRecord(new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', '}'}, "MALFORMED");
      case 3 -> new BadRecord(null, "MALFORMED"); // a tombstone
      case 4 ->
          new BadRecord(
              bytes(
                  "{\"transaction_id\":\""
                      + id
                      + "\",\"transaction_id\":\"x\",\"user_id\":"
                      + u
                      + ",\"amount_cents\":1,\"currency\":\"EUR\",\"event_timestamp\":"
                      + ts
                      + "}"),
              "MALFORMED");
      case 5 ->
          new BadRecord(
              bytes(
                  "{\"transaction_id\":\""
                      + id
                      + "\",\"amount_cents\":1,\"currency\":\"EUR\","
                      + "\"event_timestamp\":"
                      + ts
                      + "}"),
              "MISSING_FIELD");
      case 6 ->
          new BadRecord(
              bytes(
                  "{\"transaction_id\":\""
                      + id
                      + "\",\"user_id\":"
                      + u
                      + ",\"amount_cents\":1,\"currency\":null,\"event_timestamp\":"
                      + ts
                      + "}"),
              "MISSING_FIELD");
      case 7 ->
          new BadRecord(
              bytes(
                  "{\"transaction_id\":\""
                      + id
                      + "\",\"user_id\":"
                      + u
                      + ",\"amount_cents\":1,\"currency\":\"EUR\"}"),
              "MISSING_FIELD");
      case 8 -> invalid(id, u, "1", "\"usd\"", ts);
      case 9 -> invalid(id, u, "1", "\"XYZ\"", ts);
      case 10 -> invalid(id, u, "1.5", "\"EUR\"", ts);
      case 11 -> invalid(id, u, "\"100\"", "\"EUR\"", ts);
      case 12 -> invalid(id, u, "9223372036854775808", "\"EUR\"", ts);
      case 13 -> invalid("x".repeat(129), u, "1", "\"EUR\"", ts);
      case 14 -> invalid(id, "\"   \"", "1", "\"EUR\"", ts);
      case 15 -> invalid(id, u, "1", "\"EUR\"", "\"yesterday\"");
      default -> invalid(id, u, "1", "\"EUR\"", "\"" + eventTime + "\""); // digits as a string
    };
  }

  private static BadRecord invalid(
      String id, String user, String amount, String currency, String timestamp) {
    return new BadRecord(
        bytes(
            "{\"transaction_id\":\""
                + id
                + "\",\"user_id\":"
                + user
                + ",\"amount_cents\":"
                + amount
                + ",\"currency\":"
                + currency
                + ",\"event_timestamp\":"
                + timestamp
                + "}"),
        "INVALID_FIELD");
  }

  private void add(int partition, String key, String value, long timestamp, String rejected) {
    add(partition, bytes(key), bytes(value), timestamp, rejected);
  }

  private void add(int partition, String key, byte[] value, long timestamp, String rejected) {
    add(partition, bytes(key), value, timestamp, rejected);
  }

  private void add(int partition, byte[] key, byte[] value, long timestamp, String rejected) {
    inputs.add(new Input(partition, key, value, timestamp, rejected));
    if (rejected != null) {
      rejectedByReason.merge(rejected, 1, Integer::sum);
    }
  }

  private void count(String txId, String userId, String currency, long eventTime, long amount) {
    Instant window = Instant.ofEpochMilli(eventTime - Math.floorMod(eventTime, HOUR));
    oracle.merge(new SpendingKey(userId, currency, window), new Totals(amount, 1), Totals::plus);
    counted.add(RawTransaction.of(txId, userId, currency, amount, Instant.ofEpochMilli(eventTime)));
  }

  /**
   * A valid transaction; {@code random} (if not null) picks among the accepted timestamp forms and
   * sometimes adds an unknown field, which must be ignored.
   */
  private static String json(
      String txId, String userId, long amount, String currency, long eventTime, Random random) {
    int form = random == null ? 0 : random.nextInt(8);
    String timestamp =
        switch (form) {
          case 1 -> Long.toString(eventTime);
          case 2 -> "\"" + SQL_FORM.format(Instant.ofEpochMilli(eventTime)) + "\"";
          case 3 -> "\"" + OFFSET_FORM.format(Instant.ofEpochMilli(eventTime)) + "\"";
          default -> "\"" + Instant.ofEpochMilli(eventTime) + "\"";
        };
    String extra = form == 4 ? ",\"channel\":\"web\"" : "";
    return json(txId, userId, amount, currency, timestamp, extra);
  }

  /**
   * A valid transaction with its event time in the Flink SQL JSON form ({@code 2026-01-15
   * 10:15:30.123}), the one form that both Tally (as UTC) and a Flink SQL table's JSON format
   * ({@code TIMESTAMP(3)}) read, so a dataset in it can feed Tally and a SQL script alike.
   */
  public static String sqlFormJson(
      String txId, String userId, long amount, String currency, long eventTime) {
    return json(
        txId,
        userId,
        amount,
        currency,
        "\"" + SQL_FORM.format(Instant.ofEpochMilli(eventTime)) + "\"",
        "");
  }

  private static String json(
      String txId, String userId, long amount, String currency, String timestamp, String extra) {
    return "{\"transaction_id\":\""
        + txId
        + "\",\"user_id\":\""
        + userId
        + "\",\"amount_cents\":"
        + amount
        + ",\"currency\":\""
        + currency
        + "\",\"event_timestamp\":"
        + timestamp
        + extra
        + "}";
  }

  private static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }
}
