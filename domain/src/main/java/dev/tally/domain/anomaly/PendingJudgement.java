package dev.tally.domain.anomaly;

import java.util.Objects;

/**
 * A counted transaction whose baseline is not complete yet: the watermark has not reached its
 * hour's start. Kept until it has ({@link AnomalyDetector#judgeAt}).
 *
 * @param transactionId the transaction's id
 * @param currency its currency (the user is the state's key)
 * @param eventTimeMillis its event time, epoch milliseconds
 * @param amountCents its amount, positive
 */
public record PendingJudgement(
    String transactionId, String currency, long eventTimeMillis, long amountCents) {

  public PendingJudgement {
    Objects.requireNonNull(transactionId, "transactionId");
    Objects.requireNonNull(currency, "currency");
  }

  /** The hour of its event time, counted from the epoch. */
  public long hour() {
    return AnomalyDetector.hourOf(eventTimeMillis);
  }
}
