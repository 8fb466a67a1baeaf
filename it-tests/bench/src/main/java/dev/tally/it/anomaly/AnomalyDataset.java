package dev.tally.it.anomaly;

import dev.tally.it.oracle.Input;
import dev.tally.it.oracle.SpendingDataset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A seeded dataset for the anomaly rule (docs/behaviour.md "Anomalies"), in the source's JSON as
 * Tally and a Flink SQL table read it: the same seed, the same records.
 *
 * <ul>
 *   <li>{@link Shape#users()} users, each with {@link Shape#currenciesPerUser()} currencies; each
 *       (user, currency) key has its own normal amounts, drawn evenly from {@code [μ − h, μ + h]}
 *       (μ 10..500 units, h = μ/4), so a normal amount is never more than √3 standard deviations
 *       from its mean and never anomalous;
 *   <li>about {@link Shape#eventsPerKeyPerDay()} events a day per key at random times over {@link
 *       Shape#span()} (default 10 days, more than the 7-day baseline), some of two events in one
 *       millisecond;
 *   <li>spikes ({@link #spikes()}, about one every two days per key): μ + (8..19)·h, more than 13
 *       standard deviations above the mean, anomalous whenever their baseline is large enough and
 *       holds no other spike;
 *   <li>refunds (negative amounts), in no baseline and never judged;
 *   <li>exact duplicates, re-sent within a second of their original in its partition: dropped;
 *   <li>event times up to 3 s behind record times, and some events right after one up to 2.5 s
 *       later: out of order within a partition by less than the 5 s watermark bound, never late;
 *   <li>late events ({@link #late()}), two days behind their partition: rejected as {@code LATE}
 *       when the watermark has passed their window (a streaming run, or any run that reads them
 *       after the rest); each is its key's only record, so no verdict depends on whether a replay
 *       got to them before the watermark did;
 *   <li>records the source rejects: not JSON, cut short, a field missing;
 *   <li>keys for the rule's edges: {@code steady-0} (every amount equal, σ = 0, then one cent more:
 *       anomalous with a null score), {@code precise-0} (amounts of a million units that differ by
 *       cents: exact integers see a tiny σ, a {@code DOUBLE} variance loses it all), and two where
 *       the contract's whole hours and a sliding 7-day window decide otherwise ({@link
 *       #windowEdgeKeys()}).
 * </ul>
 *
 * Every record of a user goes to one partition, in production order; record timestamps are in the
 * past and topics need {@link #TOPIC_CONFIG} (see {@link SpendingDataset}).
 */
public final class AnomalyDataset {

  /** Partitions of the dataset's topic. */
  public static final int PARTITIONS = SpendingDataset.PARTITIONS;

  /** Records kept forever: the broker would delete these old timestamps. */
  public static final Map<String, String> TOPIC_CONFIG = Map.of("retention.ms", "-1");

  /** Event time of the first event. */
  public static final Instant BASE = Instant.parse("2026-01-05T00:00:00Z");

  private static final String[] CURRENCIES = {"EUR", "USD", "GBP", "JPY", "CHF"};
  private static final long HOUR = Baselines.HOUR_MILLIS;
  private static final long DAY = 24 * HOUR;
  private static final int LATE_EVENTS = 4;

  /**
   * The dataset's size.
   *
   * @param users distinct users of normal traffic
   * @param currenciesPerUser 1..5 keys per user
   * @param span event time covered
   * @param eventsPerKeyPerDay the mean rate of one key
   */
  public record Shape(int users, int currenciesPerUser, Duration span, int eventsPerKeyPerDay) {

    /** 24 users × 2 currencies, 24 events a day each, over 10 days: about 12,000 records. */
    public static final Shape DEFAULT = new Shape(24, 2, Duration.ofDays(10), 24);

    public Shape {
      if (users < 1 || currenciesPerUser < 1 || currenciesPerUser > CURRENCIES.length) {
        throw new IllegalArgumentException("users ≥ 1 and 1..5 currencies per user: " + this);
      }
      if (span.compareTo(Duration.ofDays(8)) < 0 || eventsPerKeyPerDay < 1) {
        throw new IllegalArgumentException(
            "a span of 8 days or more (a full baseline and then some), events ≥ 1: " + this);
      }
    }
  }

  private record Pending(
      long recordTime, int partition, String userId, byte[] value, RawTransaction tx, String why) {}

  private final long seed;
  private final Shape shape;
  private final List<Pending> pending = new ArrayList<>();
  private final List<Input> inputs = new ArrayList<>();
  private final List<RawTransaction> transactions = new ArrayList<>();
  private final Set<TransactionKey> spikes = new TreeSet<>();
  private final Set<TransactionKey> late = new TreeSet<>();
  private final Map<String, Integer> rejectedByReason = new TreeMap<>();
  private int refunds;
  private int exactDuplicates;

  private AnomalyDataset(long seed, Shape shape) {
    this.seed = seed;
    this.shape = shape;
  }

  /** The dataset of {@code seed}. */
  public static AnomalyDataset generate(long seed, Shape shape) {
    AnomalyDataset d = new AnomalyDataset(seed, shape);
    Random random = new Random(seed);
    for (int u = 0; u < shape.users(); u++) {
      for (int c = 0; c < shape.currenciesPerUser(); c++) {
        d.normalKey(random, "user-" + u, CURRENCIES[(u + c) % CURRENCIES.length]);
      }
    }
    d.steadyKey();
    d.preciseKey(random);
    d.windowEdgeKeys();
    d.lateEvents();
    d.malformed(random);
    d.produce();
    return d;
  }

  /** The records to produce, in order. */
  public List<Input> inputs() {
    return Collections.unmodifiableList(inputs);
  }

  /**
   * Every well-formed transaction record, in production order, duplicates and late ones included:
   * the oracles' input.
   */
  public List<RawTransaction> transactions() {
    return Collections.unmodifiableList(transactions);
  }

  /** The injected spikes. */
  public Set<TransactionKey> spikes() {
    return Collections.unmodifiableSet(spikes);
  }

  /** The late events, each its key's only record. */
  public Set<TransactionKey> late() {
    return Collections.unmodifiableSet(late);
  }

  /** How many records each reason must reject ({@code LATE} included). */
  public Map<String, Integer> rejectedByReason() {
    return Collections.unmodifiableMap(rejectedByReason);
  }

  /** Transactions with an amount ≤ 0. */
  public int refunds() {
    return refunds;
  }

  /** Exact duplicates: dropped, neither counted nor rejected. */
  public int exactDuplicates() {
    return exactDuplicates;
  }

  public long seed() {
    return seed;
  }

  public Shape shape() {
    return shape;
  }

  /** The anomaly table the contract's rule gives: docs/behaviour.md "Anomalies", defaults. */
  public Map<TransactionKey, Anomaly> expectedAnomalies() {
    return SpecAnomalyOracle.defaults().anomalies(transactions);
  }

  @Override
  public String toString() {
    return "anomaly dataset seed "
        + seed
        + ": "
        + inputs.size()
        + " records, "
        + transactions.size()
        + " transactions ("
        + spikes.size()
        + " spikes, "
        + refunds
        + " refunds, "
        + exactDuplicates
        + " exact duplicates), rejected "
        + rejectedByReason;
  }

  private void normalKey(Random random, String userId, String currency) {
    long mean = 1_000 + random.nextInt(49_000);
    long half = mean / 4;
    long[] times = eventTimes(random, shape.eventsPerKeyPerDay());
    for (int i = 0; i < times.length; i++) {
      String id = "tx-" + seed + "-" + userId + "-" + currency + "-" + i;
      long amount = mean - half + (long) (random.nextDouble() * (2 * half + 1));
      double kind = random.nextDouble();
      boolean spike = kind < 0.5 / shape.eventsPerKeyPerDay();
      if (spike) {
        amount = mean + half * (8 + random.nextInt(12));
      } else if (kind > 0.95) {
        amount = -(1 + random.nextInt((int) mean));
      }
      if (random.nextInt(15) == 0) {
        // Produced at once, followed by one of up to 2.5 s earlier: out of order, not late.
        transaction(random, id, userId, currency, amount, times[i], times[i], spike);
        long earlier = times[i] - 1 - random.nextInt(2_500);
        long amountEarlier = mean - half + random.nextInt((int) (2 * half + 1));
        transaction(
            random, id + "-o", userId, currency, amountEarlier, earlier, times[i] + 1, false);
      } else {
        long recordTime = times[i] + random.nextInt(3_000);
        transaction(random, id, userId, currency, amount, times[i], recordTime, spike);
      }
    }
  }

  /**
   * One amount every hour for three days, then one cent more: σ = 0, so any larger amount is
   * anomalous, and its score is null.
   */
  private void steadyKey() {
    String userId = "steady-0";
    long start = BASE.toEpochMilli() + 30 * 60_000L;
    for (int h = 0; h < 72; h++) {
      long t = start + h * HOUR;
      transaction(null, "steady-" + seed + "-" + h, userId, "EUR", 2_500, t, t, false);
    }
    long t = start + 72 * HOUR + 60_000;
    transaction(null, "steady-" + seed + "-spike", userId, "EUR", 2_501, t, t, true);
  }

  /**
   * A million units give or take two cents, and a few of nine cents more: exact integers see σ
   * below one cent and flag those; a {@code DOUBLE} sum of squares near 10^18 has no cents left.
   */
  private void preciseKey(Random random) {
    String userId = "precise-0";
    long[] times = eventTimes(random, 24);
    for (int i = 0; i < times.length; i++) {
      boolean spike = random.nextInt(48) == 0;
      long amount = 100_000_000 + (spike ? 9 : random.nextInt(3));
      String id = "precise-" + seed + "-" + i;
      transaction(random, id, userId, "CHF", amount, times[i], times[i], spike);
    }
  }

  /**
   * Two keys where the contract's baseline and a sliding 7-day window decide otherwise, each from
   * transactions every 8 h at ten past, 900 and 1100 in turn:
   *
   * <ul>
   *   <li>{@code edge-start-0}: 1500 at 168 h 50 min, whose contract baseline holds 20 (the first
   *       at 0 h 10 min, in the first hour of its 168) and is anomalous, while the 7 days before it
   *       hold 19;
   *   <li>{@code edge-hour-0}: 3000 at 200 h 5 min, then 1500 at 200 h 35 min: anomalous to the
   *       contract, whose baseline has the same 21 for both, not to a window that holds the 3000 of
   *       its own hour.
   * </ul>
   */
  private void windowEdgeKeys() {
    long base = BASE.toEpochMilli();
    long minute = 60_000L;
    for (int i = 0; i < 30; i++) {
      long t = base + i * 8 * HOUR + 10 * minute;
      long amount = i % 2 == 0 ? 900 : 1_100;
      if (i < 20) {
        transaction(
            null, "edge-start-" + seed + "-" + i, "edge-start-0", "GBP", amount, t, t, false);
      }
      transaction(null, "edge-hour-" + seed + "-" + i, "edge-hour-0", "EUR", amount, t, t, false);
    }
    long t = base + 168 * HOUR + 50 * minute;
    transaction(null, "edge-start-" + seed + "-t", "edge-start-0", "GBP", 1_500, t, t, true);
    t = base + 200 * HOUR + 5 * minute;
    transaction(null, "edge-hour-" + seed + "-spike", "edge-hour-0", "EUR", 3_000, t, t, true);
    t = base + 200 * HOUR + 35 * minute;
    transaction(null, "edge-hour-" + seed + "-t", "edge-hour-0", "EUR", 1_500, t, t, true);
  }

  /** Event times of one key over the span, sorted, about 2 % of them in the previous one's ms. */
  private long[] eventTimes(Random random, int perDay) {
    long span = shape.span().toMillis();
    int n = (int) (span / DAY * perDay);
    long[] times = new long[n];
    for (int i = 0; i < n; i++) {
      times[i] = BASE.toEpochMilli() + (long) (random.nextDouble() * span);
    }
    Arrays.sort(times);
    for (int i = 1; i < n; i++) {
      if (random.nextInt(50) == 0) {
        times[i] = times[i - 1];
      }
    }
    return times;
  }

  /**
   * A transaction, produced at {@code recordTime}, less than 4 s after its event time; {@code
   * random}, when given, sometimes re-sends it within the next second.
   */
  private void transaction(
      Random random,
      String id,
      String userId,
      String currency,
      long amount,
      long eventTime,
      long recordTime,
      boolean spike) {
    RawTransaction tx =
        RawTransaction.of(id, userId, currency, amount, Instant.ofEpochMilli(eventTime));
    byte[] value = bytes(SpendingDataset.sqlFormJson(id, userId, amount, currency, eventTime));
    pending.add(new Pending(recordTime, partitionOf(userId), userId, value, tx, null));
    if (spike) {
      spikes.add(tx.id());
    }
    if (amount <= 0) {
      refunds++;
    }
    if (random != null && random.nextInt(33) == 0) {
      exactDuplicates++;
      pending.add(
          new Pending(
              recordTime + 1 + random.nextInt(999), partitionOf(userId), userId, value, tx, null));
    }
  }

  /** Two days behind, late in the span, each of a user of its own. */
  private void lateEvents() {
    long span = shape.span().toMillis();
    for (int i = 0; i < LATE_EVENTS; i++) {
      String userId = "late-" + i;
      long recordTime = BASE.toEpochMilli() + span * (80 + 5 * i) / 100;
      long eventTime = recordTime - 2 * DAY;
      String id = "late-" + seed + "-" + i;
      RawTransaction tx =
          new RawTransaction(id, userId, "EUR", 1_000, Instant.ofEpochMilli(eventTime), true);
      byte[] value = bytes(SpendingDataset.sqlFormJson(id, userId, 1_000, "EUR", eventTime));
      pending.add(new Pending(recordTime, partitionOf(userId), userId, value, tx, "LATE"));
      late.add(tx.id());
    }
  }

  /** About one record in 200, of normal users, in each form in turn. */
  private void malformed(Random random) {
    int count = Math.max(4, pending.size() / 200);
    long span = shape.span().toMillis();
    for (int i = 0; i < count; i++) {
      String userId = "user-" + random.nextInt(shape.users());
      long t = BASE.toEpochMilli() + (long) (random.nextDouble() * span);
      String valid = SpendingDataset.sqlFormJson("m-" + seed + "-" + i, userId, 100, "EUR", t);
      String value;
      String why;
      switch (i % 4) {
        case 0 -> {
          value = "{not json";
          why = "MALFORMED";
        }
        case 1 -> {
          value = valid.substring(0, valid.indexOf("\"currency\""));
          why = "MALFORMED";
        }
        case 2 -> {
          value = valid.replace("\"amount_cents\":100,", "");
          why = "MISSING_FIELD";
        }
        default -> {
          value = valid.replaceFirst(",\"event_timestamp\":\"[^\"]*\"", "");
          why = "MISSING_FIELD";
        }
      }
      pending.add(new Pending(t, partitionOf(userId), userId, bytes(value), null, why));
    }
  }

  /** Production order: by record time, ties in the order generated. */
  private void produce() {
    List<Pending> ordered = new ArrayList<>(pending);
    ordered.sort(Comparator.comparingLong(Pending::recordTime));
    for (Pending p : ordered) {
      inputs.add(new Input(p.partition(), bytes(p.userId()), p.value(), p.recordTime(), p.why()));
      if (p.tx() != null) {
        transactions.add(p.tx());
      }
      if (p.why() != null) {
        rejectedByReason.merge(p.why(), 1, Integer::sum);
      }
    }
    pending.clear();
  }

  /** One user's records share a partition, so their order is the production order. */
  static int partitionOf(String userId) {
    return Math.floorMod(userId.hashCode(), PARTITIONS);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
