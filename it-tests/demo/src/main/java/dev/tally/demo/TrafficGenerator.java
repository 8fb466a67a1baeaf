package dev.tally.demo;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Realistic transaction traffic for the demo: skewed users (a few spend a lot), three currencies,
 * amounts spread over orders of magnitude with some refunds, events out of order within the
 * watermark bound, and a trickle of what production brings: exact duplicates (retries), conflicting
 * duplicates, events hours late, and bad records of every decoder reason; and now and then a spike:
 * a heavy user spending 50 to 100 times the typical amount, for Tally's anomaly detection to find.
 *
 * <p>Event time runs on a simulated clock that starts a few hours back and moves {@code speedup}
 * times faster than the wall clock until it catches up with it, so hourly windows close every
 * minute or so while the demo runs; it never passes the wall clock, so no valid event is a {@code
 * FUTURE_TIMESTAMP}.
 */
final class TrafficGenerator implements Runnable {

  private static final String[] CURRENCIES = {
    "EUR", "EUR", "EUR", "EUR", "EUR", "USD", "USD", "USD", "GBP", "GBP"
  };
  private static final int USERS = 1_000;

  /** The median of {@link #amount()}: e^7 cents. */
  static final long TYPICAL_CENTS = (long) Math.exp(7);

  /**
   * Spikes go only to users below this, the two heaviest: at ~300 events/s each makes ~90 or more
   * transactions per currency an hour (a baseline needs 20), so a spike in the demo's second event
   * hour is already judged, and a baseline that holds an earlier spike still has the spread of
   * hundreds of ordinary amounts, not of the spike (with a few dozen, one spike widens the stddev
   * enough to hide the next).
   */
  static final int SPIKE_USERS = 2;

  /**
   * About one event in 1,500 is a spike: ~12 per event hour at 300 events/s, so a two-minute demo
   * (two event hours, the first of which only builds baselines) shows a handful.
   */
  private static final double SPIKE_SHARE = 1.0 / 1_500;

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final int eventsPerSecond;
  private final long speedup;
  private final SplittableRandom random;
  private final Instant realStart = Instant.now();
  private final Instant simulatedStart;
  private final Deque<byte[][]> recent = new ArrayDeque<>();
  private final AtomicLong produced = new AtomicLong();
  private final Set<String> spikes = ConcurrentHashMap.newKeySet();
  private volatile boolean running = true;
  private long sequence;

  TrafficGenerator(
      Producer<byte[], byte[]> producer,
      String topic,
      int eventsPerSecond,
      long speedup,
      long seed) {
    this.producer = producer;
    this.topic = topic;
    this.eventsPerSecond = eventsPerSecond;
    this.speedup = speedup;
    this.random = new SplittableRandom(seed);
    Instant threeHoursAgo = realStart.minus(Duration.ofHours(3));
    this.simulatedStart =
        Instant.ofEpochMilli(
            threeHoursAgo.toEpochMilli() - threeHoursAgo.toEpochMilli() % 3_600_000L);
  }

  long produced() {
    return produced.get();
  }

  /** The transaction ids of the spikes sent so far, so the report can tell them from the rest. */
  Set<String> spikes() {
    return Set.copyOf(spikes);
  }

  /** The simulated event-time clock. */
  Instant eventClock() {
    long elapsed = Duration.between(realStart, Instant.now()).toMillis();
    Instant simulated = simulatedStart.plusMillis(elapsed * speedup);
    Instant now = Instant.now();
    return simulated.isAfter(now) ? now : simulated;
  }

  void stop() {
    running = false;
  }

  @Override
  public void run() {
    long intervalNanos = 1_000_000_000L / eventsPerSecond;
    long next = System.nanoTime();
    while (running) {
      send(nextRecord());
      next += intervalNanos;
      long sleep = next - System.nanoTime();
      if (sleep > 0) {
        try {
          Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
    producer.flush();
  }

  private void send(byte[][] keyAndValue) {
    producer.send(new ProducerRecord<>(topic, keyAndValue[0], keyAndValue[1]));
    produced.incrementAndGet();
  }

  /** The next record's key and value; package-private for the tests. */
  byte[][] nextRecord() {
    double dice = random.nextDouble();
    if (dice < 0.01 && !recent.isEmpty()) {
      return pickRecent(); // a producer retry: the very same bytes again
    }
    long eventTime = eventClock().toEpochMilli() - random.nextLong(0, 4_000);
    String user = "user-" + (int) (USERS * Math.pow(random.nextDouble(), 3));
    String id = "tx-" + Long.toString(++sequence, 36) + "-" + Integer.toHexString(random.nextInt());
    long amount = amount();
    String currency = CURRENCIES[random.nextInt(CURRENCIES.length)];
    if (dice < 0.013 && !recent.isEmpty()) {
      byte[][] original = pickRecent(); // same id, different content
      String json = new String(original[1], StandardCharsets.UTF_8);
      return new byte[][] {
        original[0],
        json.replaceFirst("\"amount_cents\":-?\\d+", "\"amount_cents\":" + amount)
            .getBytes(StandardCharsets.UTF_8)
      };
    }
    if (dice < 0.018) {
      eventTime -= Duration.ofHours(2).toMillis(); // hours late: its window is long final
    }
    String json = json(id, user, amount, currency, Instant.ofEpochMilli(eventTime).toString());
    if (dice >= 0.018 && dice < 0.025) {
      json = badRecord(id, user, amount, currency, eventTime);
      return new byte[][] {bytes(user), bytes(json)};
    }
    if (dice >= 0.025 && dice < 0.025 + SPIKE_SHARE) {
      // A fresh id, on time, valid: so the spike is counted and judged, never a dead letter. Only
      // heavy users, whose baselines fill within the demo's first event hour.
      user = "user-" + random.nextInt(SPIKE_USERS);
      long spike = TYPICAL_CENTS * random.nextLong(50, 101);
      json = json(id, user, spike, currency, Instant.ofEpochMilli(eventTime).toString());
      spikes.add(id);
    }
    byte[][] record = {bytes(user), bytes(json)};
    recent.addLast(record);
    if (recent.size() > 200) {
      recent.removeFirst();
    }
    return record;
  }

  private String badRecord(String id, String user, long amount, String currency, long eventTime) {
    return switch (random.nextInt(5)) {
      case 0 -> "{\"transaction_id\":\"" + id + "\",\"user_id\":\"" + user; // truncated
      case 1 ->
          "{\"transaction_id\":\""
              + id
              + "\",\"amount_cents\":"
              + amount
              + ",\"currency\":\""
              + currency
              + "\"}";
      case 2 ->
          json(
              id,
              user,
              amount,
              currency.toLowerCase(Locale.ROOT),
              Instant.ofEpochMilli(eventTime).toString());
      case 3 ->
          json(id, user, amount, currency, Instant.now().plus(Duration.ofHours(3)).toString());
      default ->
          "{\"transaction_id\":\""
              + id
              + "\",\"user_id\":\""
              + user
              + "\",\"amount_cents\":\""
              + amount
              + "\",\"currency\":\""
              + currency
              + "\",\"event_timestamp\":"
              + eventTime
              + "}";
    };
  }

  private long amount() {
    long cents = (long) Math.exp(7 + random.nextGaussian() * 1.2);
    return random.nextDouble() < 0.03 ? -cents : Math.max(1, cents);
  }

  private byte[][] pickRecent() {
    int skip = random.nextInt(recent.size());
    return recent.stream().skip(skip).findFirst().orElseThrow();
  }

  private static String json(
      String id, String user, long amount, String currency, String timestamp) {
    return "{\"transaction_id\":\""
        + id
        + "\",\"user_id\":\""
        + user
        + "\",\"amount_cents\":"
        + amount
        + ",\"currency\":\""
        + currency
        + "\",\"event_timestamp\":\""
        + timestamp
        + "\"}";
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
