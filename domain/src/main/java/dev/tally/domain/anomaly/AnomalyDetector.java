package dev.tally.domain.anomaly;

import java.io.Serializable;
import java.util.Objects;

/**
 * The 7-day baseline of docs/behaviour.md "Anomalies" for one user's transactions, per currency:
 * which hourly bucket a transaction enters, when it is judged, and against what.
 *
 * <ul>
 *   <li>A transaction with a positive amount enters the bucket of its hour (UTC, from the epoch);
 *       refunds (0 or less) enter nothing and are never judged.
 *   <li>It is judged against the buckets of the 168 whole hours before its own once the watermark
 *       has completed the hour before its own ({@link #judgeAt}): then that baseline is complete.
 *       Arriving earlier, it waits ({@link Arrival.Waiting}); arriving later, it is judged at once.
 *   <li>A bucket is dropped once no transaction still to be judged can have it in its baseline
 *       ({@link #forget}).
 * </ul>
 *
 * <p>Pure and stateless: the state is a {@link BaselineStore} the caller passes in, and time is the
 * watermark it passes, the event time up to which (inclusive) the input is complete.
 */
public final class AnomalyDetector implements Serializable {

  private static final long serialVersionUID = 1L;

  /** The length of a baseline bucket. */
  public static final long HOUR_MILLIS = 3_600_000L;

  /** How many hours before a transaction's own its baseline spans: 7 days. */
  public static final int BASELINE_HOURS = 168;

  private final AnomalyRule rule;

  public AnomalyDetector(AnomalyRule rule) {
    this.rule = Objects.requireNonNull(rule, "rule");
  }

  public AnomalyRule rule() {
    return rule;
  }

  /** The hour of an instant, counted from the epoch. */
  public static long hourOf(long epochMillis) {
    return Math.floorDiv(epochMillis, HOUR_MILLIS);
  }

  /**
   * The watermark from which transactions of {@code hour} are judged: the last instant of the hour
   * before, so that every event of their baseline has been seen (or is late and rejected).
   */
  public static long judgeAt(long hour) {
    return hour * HOUR_MILLIS - 1;
  }

  /** The latest hour whose transactions are judged at {@code watermark} ({@link #judgeAt}). */
  static long reachedHour(long watermark) {
    return watermark == Long.MAX_VALUE ? hourOf(watermark) : hourOf(watermark + 1);
  }

  /** What became of a counted transaction. */
  public sealed interface Arrival permits Ignored, Waiting, Decided {

    /** Whether it opened the bucket of its hour: a new hour for this key. */
    boolean newBucket();

    /** The hour of its bucket. */
    long hour();
  }

  /** A refund: no bucket, no judgement. */
  public record Ignored() implements Arrival {
    @Override
    public boolean newBucket() {
      return false;
    }

    @Override
    public long hour() {
      return Long.MIN_VALUE;
    }
  }

  /**
   * Counted into its bucket; to be judged when the watermark reaches {@link #judgeAt}({@code
   * hour}), kept until then as a {@link PendingJudgement}.
   */
  public record Waiting(long hour, boolean newBucket) implements Arrival {}

  /** Counted into its bucket and judged at once. */
  public record Decided(long hour, boolean newBucket, AnomalyVerdict verdict) implements Arrival {
    public Decided {
      Objects.requireNonNull(verdict, "verdict");
    }
  }

  private static final Ignored IGNORED = new Ignored();

  /**
   * A transaction the aggregator counted (neither a duplicate nor rejected): adds it to its bucket,
   * and judges it if its baseline is complete at {@code watermark}.
   */
  public <E extends Exception> Arrival arrive(
      String currency,
      long eventTimeMillis,
      long amountCents,
      long watermark,
      BaselineStore<E> store)
      throws E {
    if (amountCents <= 0) {
      return IGNORED;
    }
    long hour = hourOf(eventTimeMillis);
    HourBucket bucket = store.bucket(currency, hour);
    store.putBucket(
        currency, hour, bucket == null ? HourBucket.of(amountCents) : bucket.plus(amountCents));
    boolean newBucket = bucket == null;
    boolean due = judgeAt(hour) <= watermark;
    if (!due && !newBucket) {
      // The head needs no change: a listed hour the watermark has not reached is at or after the
      // cursor, which only ever stands at hours already reached, so it is in no window yet.
      return new Waiting(hour, false);
    }
    BaselineHead head = store.head(currency);
    if (head == null) {
      // Never after the hours the watermark reached, so that the note above holds for it too.
      head = BaselineHead.empty(Math.min(hour, reachedHour(watermark)));
    }
    head = head.counted(hour, amountCents);
    if (!due) {
      store.putHead(currency, head);
      return new Waiting(hour, true);
    }
    head = head.movedTo(hour, h -> store.bucket(currency, h));
    store.putHead(currency, head);
    return new Decided(hour, newBucket, rule.judge(amountCents, head.totals()));
  }

  /** Judges a transaction that waited for its baseline: call once the watermark reached it. */
  public <E extends Exception> AnomalyVerdict judge(
      PendingJudgement pending, BaselineStore<E> store) throws E {
    String currency = pending.currency();
    BaselineHead head = store.head(currency);
    if (head == null) {
      throw new IllegalStateException(
          "no baseline for " + currency + " though " + pending + " was counted into it");
    }
    BaselineHead moved = head.movedTo(pending.hour(), h -> store.bucket(currency, h));
    if (moved != head) {
      store.putHead(currency, moved);
    }
    return rule.judge(pending.amountCents(), moved.totals());
  }

  /**
   * Drops a currency's buckets no transaction judged from now on can need: those before {@code
   * earliestJudgedHour − 168}, given that no transaction of an hour before {@code
   * earliestJudgedHour} can still be counted. Drops the head too when no bucket is left.
   *
   * @return whether the currency still holds state
   */
  public <E extends Exception> boolean forget(
      String currency, long earliestJudgedHour, BaselineStore<E> store) throws E {
    BaselineHead head = store.head(currency);
    if (head == null) {
      return false;
    }
    long keepFrom = earliestJudgedHour - BASELINE_HOURS;
    BaselineHead kept = head.without(keepFrom, h -> store.bucket(currency, h));
    if (kept == head) {
      return true;
    }
    for (long hour : head.hours()) {
      if (hour >= keepFrom) {
        break;
      }
      store.removeBucket(currency, hour);
    }
    if (kept == null) {
      store.removeHead(currency);
      return false;
    }
    store.putHead(currency, kept);
    return true;
  }
}
