package dev.tally.bench;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.BitSet;
import java.util.SplittableRandom;

/**
 * The bench's seeded traffic: users drawn from a Zipf distribution (a few heavy spenders, a long
 * tail), three currencies, valid and unique transactions only, so every event must be counted and
 * the expected table is known exactly. Event times advance evenly over a span that ends in the
 * past, with a little jitter (well under the watermark's 5 s bound), so nothing is late.
 *
 * <p>Keeps the expectation while it generates: events, the sum of amounts and the distinct (user,
 * currency, window) rows, which the bench compares with the Iceberg table.
 */
final class Workload {

  static final String[] CURRENCIES = {"EUR", "USD", "GBP"};
  private static final long JITTER_MILLIS = 2_000;
  private static final DateTimeFormatter SQL_TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

  private final SplittableRandom random;
  private final double[] cumulative;
  private final long firstEventMillis;
  private final long spanMillis;
  private final long events;
  private final long windowMillis;
  private final BitSet rows = new BitSet();
  private final BitSet userRows = new BitSet();
  private final StringBuilder json = new StringBuilder(192);
  private long generated;
  private long amountSum;

  /**
   * @param users number of distinct users
   * @param zipfExponent skew: user k (1-based) is drawn with weight 1/k^s
   */
  Workload(
      long seed,
      int users,
      double zipfExponent,
      long events,
      long firstEventMillis,
      long spanMillis,
      long windowMillis) {
    this.random = new SplittableRandom(seed);
    this.cumulative = new double[users];
    double total = 0;
    for (int k = 0; k < users; k++) {
      total += 1.0 / Math.pow(k + 1, zipfExponent);
      cumulative[k] = total;
    }
    for (int k = 0; k < users; k++) {
      cumulative[k] /= total;
    }
    this.events = events;
    this.firstEventMillis = firstEventMillis;
    this.spanMillis = spanMillis;
    this.windowMillis = windowMillis;
  }

  /** One event of the live mode: the given event time, a drawn user, currency and amount. */
  Event live(long eventTimeMillis) {
    return next(eventTimeMillis);
  }

  /** The next event of the preloaded workload, or {@code null} after the last one. */
  Event next() {
    if (generated >= events) {
      return null;
    }
    long base = firstEventMillis + (long) ((double) generated * spanMillis / events);
    long eventTime = Math.max(firstEventMillis, base - random.nextLong(JITTER_MILLIS));
    return next(eventTime);
  }

  private Event next(long eventTime) {
    int user = user();
    int currency = random.nextInt(CURRENCIES.length);
    long amount = random.nextLong(-5_000, 500_000);
    long id = generated++;
    amountSum += amount;
    long window = (eventTime - firstEventMillis) / windowMillis;
    if (window >= 0 && window < Integer.MAX_VALUE / CURRENCIES.length / cumulative.length) {
      rows.set((int) ((window * cumulative.length + user) * CURRENCIES.length + currency));
      userRows.set((int) (window * cumulative.length + user));
    }
    json.setLength(0);
    json.append("{\"transaction_id\":\"tx-")
        .append(id)
        .append("\",\"user_id\":\"user-")
        .append(user)
        .append("\",\"amount_cents\":")
        .append(amount)
        .append(",\"currency\":\"")
        .append(CURRENCIES[currency])
        .append("\",\"event_timestamp\":\"");
    // The Flink SQL form, which Tally reads as UTC and the seed's SQL (JSON format, TIMESTAMP(3))
    // reads too, so every leg can read the same records.
    SQL_TIMESTAMP.formatTo(Instant.ofEpochMilli(eventTime), json);
    json.append("\"}");
    return new Event(
        ("user-" + user).getBytes(StandardCharsets.UTF_8),
        json.toString().getBytes(StandardCharsets.UTF_8),
        eventTime,
        user,
        CURRENCIES[currency],
        amount);
  }

  private int user() {
    double u = random.nextDouble();
    int lo = 0;
    int hi = cumulative.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cumulative[mid] < u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  long generated() {
    return generated;
  }

  /** The exact sum of every generated amount. */
  long amountSum() {
    return amountSum;
  }

  /** Distinct (user, window) rows: the seed's SQL table, which does not key by currency. */
  long expectedUserRows() {
    return userRows.cardinality();
  }

  /**
   * Distinct (user, currency, window) rows of the preloaded workload, windows aligned to its first
   * event (which the bench puts on a window boundary).
   */
  long expectedRows() {
    return rows.cardinality();
  }

  /**
   * One record to produce, and what it says, for an expectation kept while producing.
   *
   * @param user the user's number: its {@code user_id} is {@code user-<user>}
   */
  record Event(
      byte[] key,
      byte[] value,
      long eventTimeMillis,
      int user,
      String currency,
      long amountCents) {}
}
