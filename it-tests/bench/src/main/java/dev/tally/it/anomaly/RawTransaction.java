package dev.tally.it.anomaly;

import java.time.Instant;

/**
 * One well-formed transaction record as a dataset wrote it, in production order: what the oracles
 * read. A record the source rejects for its form (not JSON, a missing field) is not one; a record
 * that is rejected for when it comes ({@code late}) is, since only the rule decides its fate.
 *
 * @param late its event time is far behind its partition's: rejected as {@code LATE} by Tally
 */
public record RawTransaction(
    String transactionId,
    String userId,
    String currency,
    long amountCents,
    Instant eventTime,
    boolean late) {

  /** A transaction that is not late. */
  public static RawTransaction of(
      String transactionId, String userId, String currency, long amountCents, Instant eventTime) {
    return new RawTransaction(transactionId, userId, currency, amountCents, eventTime, false);
  }

  /** The aggregation and anomaly key: (user, currency). */
  public String key() {
    return userId + "/" + currency;
  }

  /** The identity Tally dedupes by and the anomaly table is keyed by: (user, transaction id). */
  public TransactionKey id() {
    return new TransactionKey(userId, transactionId);
  }

  /** Event time in epoch milliseconds. */
  public long eventMillis() {
    return eventTime.toEpochMilli();
  }
}
