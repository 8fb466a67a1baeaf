package dev.tally.domain.anomaly;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
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
 * @param baselineMeanCents the baseline's mean amount, to {@value #SCALE} decimal places
 * @param baselineStddevCents the baseline's population standard deviation, to {@value #SCALE}
 *     decimal places
 * @param score {@code (amount − mean)/σ} to 16 significant digits; {@code null} when σ is 0
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

  /** The decimal places of the reported mean and standard deviation. */
  public static final int SCALE = 4;

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
    BigDecimal score = baseline.score(verdict.amountCents());
    return new Anomaly(
        transactionId,
        userId,
        currency,
        eventTimeMillis,
        verdict.amountCents(),
        baseline.count(),
        baseline.mean().setScale(SCALE, RoundingMode.HALF_EVEN),
        baseline.standardDeviation().setScale(SCALE, RoundingMode.HALF_EVEN),
        score == null ? null : score.round(MathContext.DECIMAL64));
  }
}
