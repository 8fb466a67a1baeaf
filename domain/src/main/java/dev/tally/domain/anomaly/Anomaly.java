package dev.tally.domain.anomaly;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * One anomalous transaction as Tally reports it (docs/behaviour.md "Anomalies"): the transaction,
 * and the baseline it stood out from.
 *
 * @param transactionId the transaction's id
 * @param userId its user
 * @param currency its currency
 * @param eventTimeMillis its event time, epoch milliseconds
 * @param amountCents its amount
 * @param baselineCount how many transactions the baseline held
 * @param baselineMeanCents the baseline's mean amount
 * @param baselineStddevCents the baseline's population standard deviation
 * @param score {@code (amount − mean)/σ}; {@code null} when σ is 0
 */
public record Anomaly(
    String transactionId,
    String userId,
    String currency,
    long eventTimeMillis,
    long amountCents,
    long baselineCount,
    BigDecimal baselineMeanCents,
    BigDecimal baselineStddevCents,
    BigDecimal score) {

  public Anomaly {
    Objects.requireNonNull(transactionId, "transactionId");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(currency, "currency");
    Objects.requireNonNull(baselineMeanCents, "baselineMeanCents");
    Objects.requireNonNull(baselineStddevCents, "baselineStddevCents");
  }

  /** The report of a transaction the rule found anomalous. */
  public static Anomaly of(
      String transactionId,
      String userId,
      String currency,
      long eventTimeMillis,
      AnomalyVerdict.Anomalous verdict) {
    Baseline baseline = verdict.baseline();
    return new Anomaly(
        transactionId,
        userId,
        currency,
        eventTimeMillis,
        verdict.amountCents(),
        baseline.count(),
        baseline.mean(),
        baseline.standardDeviation(),
        baseline.score(verdict.amountCents()));
  }
}
