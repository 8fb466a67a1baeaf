package dev.tally.domain.anomaly;

/**
 * Where one user's baselines are kept, per currency: a {@link BaselineHead} and the hourly buckets
 * it lists. The caller implements it over whatever state it has (a state backend, maps in a test),
 * so {@link AnomalyDetector} can load exactly the buckets a step needs and no others.
 *
 * @param <E> what the underlying state may throw
 */
public interface BaselineStore<E extends Exception> {

  /** The head of a currency's baseline, {@code null} for none. */
  BaselineHead head(String currency) throws E;

  /** Stores a currency's head. */
  void putHead(String currency, BaselineHead head) throws E;

  /** Drops a currency's head: it lists no bucket any more. */
  void removeHead(String currency) throws E;

  /** A currency's bucket of one hour, {@code null} for none. */
  HourBucket bucket(String currency, long hour) throws E;

  /** Stores a currency's bucket of one hour. */
  void putBucket(String currency, long hour, HourBucket bucket) throws E;

  /** Drops a currency's bucket of one hour. */
  void removeBucket(String currency, long hour) throws E;
}
