package dev.tally.it.anomaly;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Objects;

/**
 * One anomaly as Tally's anomaly table and topic report it (docs/behaviour.md "Anomalies"): mean
 * and standard deviation as decimals of four places, the score as the table's double. Decimals are
 * compared by value (their trailing zeros stripped), so a row, an alert and the oracle's report of
 * one anomaly are equal exactly when their values are.
 *
 * @param score {@code (amount − mean) / stddev} as a double, {@code null} when the deviation is 0
 */
public record AnomalyReport(
    String transactionId,
    String userId,
    String currency,
    Instant eventTime,
    long amountCents,
    long baselineCount,
    BigDecimal baselineMeanCents,
    BigDecimal baselineStddevCents,
    Double score) {

  public AnomalyReport {
    Objects.requireNonNull(transactionId, "transactionId");
    Objects.requireNonNull(userId, "userId");
    baselineMeanCents = baselineMeanCents.stripTrailingZeros();
    baselineStddevCents = baselineStddevCents.stripTrailingZeros();
  }

  /** The anomaly table's identifier. */
  public TransactionKey id() {
    return new TransactionKey(userId, transactionId);
  }
}
