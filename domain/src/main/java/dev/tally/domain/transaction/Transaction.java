package dev.tally.domain.transaction;

import java.time.Instant;

/**
 * One accepted financial transaction (docs/behaviour.md "Input"). Instances always satisfy the
 * field rules: the constructor enforces them, so a {@code Transaction} in hand is a valid one. To
 * turn untrusted input into a transaction, or into a reason why not, use {@link
 * TransactionValidator}.
 *
 * @param transactionId the producer's id, 1..128 characters, no surrounding whitespace
 * @param userId the spending user, 1..128 characters, no surrounding whitespace
 * @param amountCents signed amount in the currency's minor unit; negative is a refund
 * @param currency an upper-case ISO 4217 code known to {@link java.util.Currency}
 * @param eventTime when the transaction happened, at millisecond precision
 */
public record Transaction(
    String transactionId, String userId, long amountCents, String currency, Instant eventTime) {

  public Transaction {
    String problem =
        FieldRules.firstProblem(
            FieldRules.checkIdentifier(TransactionField.TRANSACTION_ID, transactionId),
            FieldRules.checkIdentifier(TransactionField.USER_ID, userId),
            FieldRules.checkCurrency(currency),
            FieldRules.checkEventTime(eventTime));
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  /** The event time in epoch milliseconds. */
  public long eventTimeMillis() {
    return eventTime.toEpochMilli();
  }
}
