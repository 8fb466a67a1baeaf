package dev.tally.domain.anomaly;

import java.util.Arrays;
import java.util.Objects;

/**
 * The running totals of one key's baseline, and which hours it has buckets for.
 *
 * <p>The totals are those of the buckets in the 168 hours before the cursor, {@code [cursor − 168,
 * cursor)}: the baseline of a transaction of the cursor's hour. Moving the cursor adds the buckets
 * that enter that window and subtracts those that leave it ({@link #movedTo}), so each bucket is
 * read once when it enters and once when it leaves, never summed again with the others: the work
 * per transaction does not grow with the 168 hours. The hours are kept so that a move reads only
 * buckets that exist, whatever the gaps between them.
 */
public final class BaselineHead {

  private static final long[] NO_HOURS = new long[0];

  private final long cursor;
  private final Baseline totals;
  private final long[] hours;

  /**
   * @param cursor the hour whose baseline {@code totals} is, counted from the epoch
   * @param totals the totals of the buckets in {@code [cursor − 168, cursor)}
   * @param hours every hour this key has a bucket for, ascending, without repeats; not copied
   */
  public BaselineHead(long cursor, Baseline totals, long[] hours) {
    this.cursor = cursor;
    this.totals = Objects.requireNonNull(totals, "totals");
    this.hours = Objects.requireNonNull(hours, "hours");
  }

  /** A head with no buckets, its cursor at {@code hour}. */
  public static BaselineHead empty(long hour) {
    return new BaselineHead(hour, Baseline.EMPTY, NO_HOURS);
  }

  /** Reads a bucket the head lists. */
  @FunctionalInterface
  public interface Buckets<E extends Exception> {
    /** The bucket of {@code hour}, which the head lists. */
    HourBucket at(long hour) throws E;
  }

  public long cursor() {
    return cursor;
  }

  public Baseline totals() {
    return totals;
  }

  /** The hours with a bucket, ascending; the caller must not modify the array. */
  public long[] hours() {
    return hours;
  }

  /** Whether {@code hour} is in the baseline of the cursor's hour. */
  public boolean inWindow(long hour) {
    return hour >= cursor - AnomalyDetector.BASELINE_HOURS && hour < cursor;
  }

  /**
   * This head after one amount was added to the bucket of {@code hour}: the hour listed, and the
   * totals updated when the hour is in the cursor's baseline.
   */
  public BaselineHead counted(long hour, long amountCents) {
    long[] listed = hours;
    int at = Arrays.binarySearch(hours, hour);
    if (at < 0) {
      int insert = -at - 1;
      listed = new long[hours.length + 1];
      System.arraycopy(hours, 0, listed, 0, insert);
      listed[insert] = hour;
      System.arraycopy(hours, insert, listed, insert + 1, hours.length - insert);
    }
    Baseline next = inWindow(hour) ? totals.plus(amountCents) : totals;
    return listed == hours && next == totals ? this : new BaselineHead(cursor, next, listed);
  }

  /**
   * This head with its cursor at {@code target}: the buckets leaving the 168-hour window
   * subtracted, those entering it added. Reads only those buckets.
   */
  public <E extends Exception> BaselineHead movedTo(long target, Buckets<E> buckets) throws E {
    if (target == cursor) {
      return this;
    }
    long width = AnomalyDetector.BASELINE_HOURS;
    long oldFrom = cursor - width;
    long newFrom = target - width;
    Baseline next = totals;
    // Leaving: in [oldFrom, cursor) but not in [newFrom, target).
    next = subtract(next, oldFrom, Math.min(cursor, newFrom), buckets);
    next = subtract(next, Math.max(oldFrom, target), cursor, buckets);
    // Entering: in [newFrom, target) but not in [oldFrom, cursor).
    next = add(next, newFrom, Math.min(target, oldFrom), buckets);
    next = add(next, Math.max(newFrom, cursor), target, buckets);
    return new BaselineHead(target, next, hours);
  }

  /**
   * This head without the buckets before {@code hour} (which the caller drops), their amounts taken
   * out of the totals where the window held them; {@code null} when no bucket is left.
   */
  public <E extends Exception> BaselineHead without(long hour, Buckets<E> buckets) throws E {
    int keep = firstAtOrAfter(hour);
    if (keep == 0) {
      return this;
    }
    if (keep == hours.length) {
      return null;
    }
    Baseline next =
        subtract(totals, cursor - AnomalyDetector.BASELINE_HOURS, Math.min(hour, cursor), buckets);
    return new BaselineHead(cursor, next, Arrays.copyOfRange(hours, keep, hours.length));
  }

  private <E extends Exception> Baseline add(
      Baseline from, long start, long end, Buckets<E> buckets) throws E {
    return apply(from, start, end, buckets, true);
  }

  private <E extends Exception> Baseline subtract(
      Baseline from, long start, long end, Buckets<E> buckets) throws E {
    return apply(from, start, end, buckets, false);
  }

  /** {@code from} with each listed bucket of {@code [start, end)} added or subtracted. */
  private <E extends Exception> Baseline apply(
      Baseline from, long start, long end, Buckets<E> buckets, boolean add) throws E {
    Baseline next = from;
    for (int i = firstAtOrAfter(start); i < hours.length && hours[i] < end; i++) {
      HourBucket bucket = buckets.at(hours[i]);
      next = add ? next.plus(bucket) : next.minus(bucket);
    }
    return next;
  }

  private int firstAtOrAfter(long hour) {
    int at = Arrays.binarySearch(hours, hour);
    return at >= 0 ? at : -at - 1;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BaselineHead other
        && cursor == other.cursor
        && totals.equals(other.totals)
        && Arrays.equals(hours, other.hours);
  }

  @Override
  public int hashCode() {
    return Objects.hash(cursor, totals, Arrays.hashCode(hours));
  }

  @Override
  public String toString() {
    return "BaselineHead[cursor=" + cursor + ", totals=" + totals + ", hours=" + hours.length + "]";
  }
}
