package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.BaselineHead;
import dev.tally.domain.anomaly.BaselineStore;
import dev.tally.domain.anomaly.HourBucket;
import dev.tally.domain.anomaly.PendingJudgement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One user's whole anomaly state, on the heap: per currency the {@link BaselineHead} and the hour
 * buckets it lists, the transactions waiting for their hour, and the latest day whose forget timer
 * is registered. {@link AnomalyWatch} reads it once from the state backend per event or timer, lets
 * {@link dev.tally.domain.anomaly.AnomalyDetector} work on it through {@link BaselineStore}, and
 * writes it back once, only if {@link #changed()}: a point read and write instead of one RocksDB
 * call per bucket, head and pending transaction.
 *
 * <p>At rest (between two calls of the detector) each currency's buckets are exactly the hours its
 * head lists; {@link UserBaselinesSerializer} relies on it to store the hours once, in the head.
 */
final class UserBaselines implements BaselineStore<RuntimeException> {

  private final Map<String, BaselineHead> heads;
  private final Map<String, Map<Long, HourBucket>> buckets;

  /**
   * Buckets as read and not decoded yet, by currency: most timers need none of them (nothing to
   * judge or forget), and decoding a week of buckets was a quarter of the aggregator thread.
   */
  private final Map<String, UserBaselinesSerializer.PackedBuckets> packed;

  private final List<PendingJudgement> pending;
  private long forgetDay;
  private boolean changed;

  /** No state yet. */
  UserBaselines() {
    this(new LinkedHashMap<>(2), new HashMap<>(2), new HashMap<>(2), new ArrayList<>(2), 0);
  }

  /** Restored state; the maps and list are taken, not copied. */
  UserBaselines(
      Map<String, BaselineHead> heads,
      Map<String, Map<Long, HourBucket>> buckets,
      List<PendingJudgement> pending,
      long forgetDay) {
    this(heads, buckets, new HashMap<>(2), pending, forgetDay);
  }

  /**
   * Restored state with buckets still packed; the maps and list are taken, not copied.
   *
   * @param packed per currency, its buckets as read, decoded on first access
   */
  UserBaselines(
      Map<String, BaselineHead> heads,
      Map<String, Map<Long, HourBucket>> buckets,
      Map<String, UserBaselinesSerializer.PackedBuckets> packed,
      List<PendingJudgement> pending,
      long forgetDay) {
    this.heads = heads;
    this.buckets = buckets;
    this.packed = packed;
    this.pending = pending;
    this.forgetDay = forgetDay;
  }

  /** A copy that shares only the immutable heads, buckets and judgements. */
  UserBaselines copy() {
    Map<String, Map<Long, HourBucket>> bucketsCopy = new HashMap<>(buckets.size() * 2);
    buckets.forEach((currency, byHour) -> bucketsCopy.put(currency, new HashMap<>(byHour)));
    return new UserBaselines(
        new LinkedHashMap<>(heads),
        bucketsCopy,
        new HashMap<>(packed),
        new ArrayList<>(pending),
        forgetDay);
  }

  /** Whether anything changed since it was read (or created). */
  boolean changed() {
    return changed;
  }

  /**
   * Notes that it was handed to the state (or its write-back) as it is: {@link #changed()} then
   * tells a change since, of a value kept on the heap.
   */
  void stored() {
    changed = false;
  }

  /** Whether it holds nothing worth storing: no baseline and nothing waiting. */
  boolean isEmpty() {
    return heads.isEmpty() && pending.isEmpty();
  }

  /** The currencies with a head, in the order they were first seen. */
  Iterable<String> currencies() {
    return new ArrayList<>(heads.keySet());
  }

  /** The heads by currency; for the serializer, not to be modified. */
  Map<String, BaselineHead> heads() {
    return heads;
  }

  /** The transactions waiting for their hour, in arrival order; for the serializer. */
  List<PendingJudgement> pending() {
    return pending;
  }

  /** Waits for the watermark to reach the transaction's hour. */
  void await(PendingJudgement judgement) {
    pending.add(Objects.requireNonNull(judgement, "judgement"));
    changed = true;
  }

  /** Replaces the waiting transactions. */
  void keepWaiting(List<PendingJudgement> still) {
    pending.clear();
    pending.addAll(still);
    changed = true;
  }

  /**
   * The latest day (from the epoch, UTC) whose buckets' forget timer is registered, 0 for none: a
   * bucket of that day or before needs no new timer.
   */
  long forgetDay() {
    return forgetDay;
  }

  /** Notes that the forget timer of {@code day}'s buckets is registered. */
  void forgetTimerRegistered(long day) {
    forgetDay = day;
    changed = true;
  }

  @Override
  public BaselineHead head(String currency) {
    return heads.get(currency);
  }

  @Override
  public void putHead(String currency, BaselineHead head) {
    heads.put(currency, Objects.requireNonNull(head, "head"));
    changed = true;
  }

  @Override
  public void removeHead(String currency) {
    heads.remove(currency);
    buckets.remove(currency);
    packed.remove(currency);
    changed = true;
  }

  @Override
  public HourBucket bucket(String currency, long hour) {
    Map<Long, HourBucket> byHour = decoded(currency);
    return byHour == null ? null : byHour.get(hour);
  }

  @Override
  public void putBucket(String currency, long hour, HourBucket bucket) {
    Map<Long, HourBucket> byHour = decoded(currency);
    if (byHour == null) {
      byHour = new HashMap<>();
      buckets.put(currency, byHour);
    }
    byHour.put(hour, Objects.requireNonNull(bucket, "bucket"));
    changed = true;
  }

  @Override
  public void removeBucket(String currency, long hour) {
    Map<Long, HourBucket> byHour = decoded(currency);
    if (byHour != null && byHour.remove(hour) != null) {
      changed = true;
    }
  }

  /**
   * A currency's buckets still as read, for the serializer to write back unchanged; {@code null}
   * once decoded, or when the head no longer lists the hours they were read for.
   */
  UserBaselinesSerializer.PackedBuckets packed(String currency) {
    UserBaselinesSerializer.PackedBuckets p = packed.get(currency);
    BaselineHead head = heads.get(currency);
    return p != null && head != null && Arrays.equals(p.hours(), head.hours()) ? p : null;
  }

  /** A currency's decoded buckets, decoding them on first access; {@code null} for none. */
  Map<Long, HourBucket> decoded(String currency) {
    UserBaselinesSerializer.PackedBuckets p = packed.remove(currency);
    if (p != null) {
      Map<Long, HourBucket> byHour = p.decode();
      buckets.put(currency, byHour);
      return byHour;
    }
    return buckets.get(currency);
  }

  /** How many buckets a currency holds; for the serializer's check of the rest invariant. */
  int bucketCount(String currency) {
    Map<Long, HourBucket> byHour = decoded(currency);
    return byHour == null ? 0 : byHour.size();
  }

  private Map<String, Map<Long, HourBucket>> allDecoded() {
    for (String currency : new ArrayList<>(packed.keySet())) {
      decoded(currency);
    }
    return buckets;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UserBaselines other
        && forgetDay == other.forgetDay
        && heads.equals(other.heads)
        && allDecoded().equals(other.allDecoded())
        && pending.equals(other.pending);
  }

  @Override
  public int hashCode() {
    return Objects.hash(heads, allDecoded(), pending, forgetDay);
  }

  @Override
  public String toString() {
    return "UserBaselines[heads="
        + heads
        + ", buckets="
        + allDecoded()
        + ", pending="
        + pending.size()
        + ", forgetDay="
        + forgetDay
        + "]";
  }
}
