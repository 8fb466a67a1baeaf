package dev.tally.it.anomaly;

import java.time.Instant;

/**
 * One row of an anomaly table, as docs/behaviour.md names its columns: the transaction, and the
 * baseline it was judged against.
 *
 * @param score {@code (amount − mean) / stddev}, {@code null} when the standard deviation is 0
 */
public record Anomaly(
    String transactionId,
    String userId,
    String currency,
    Instant eventTime,
    long amountCents,
    long baselineCount,
    double baselineMeanCents,
    double baselineStddevCents,
    Double score) {

  /** The row of an anomalous {@code t}, judged on a baseline of {@code count} transactions. */
  static Anomaly of(RawTransaction t, long count, double mean, double stddev, Double score) {
    return new Anomaly(
        t.transactionId(),
        t.userId(),
        t.currency(),
        t.eventTime(),
        t.amountCents(),
        count,
        mean,
        stddev,
        score);
  }

  /** The table's identifier. */
  public TransactionKey id() {
    return new TransactionKey(userId, transactionId);
  }
}
