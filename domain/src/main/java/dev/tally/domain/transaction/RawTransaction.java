package dev.tally.domain.transaction;

import java.util.Objects;

/**
 * The five input fields exactly as decoded, not yet judged. Build one per record and hand it to
 * {@link TransactionValidator#validate}.
 */
public record RawTransaction(
    RawValue transactionId,
    RawValue userId,
    RawValue amountCents,
    RawValue currency,
    RawValue eventTimestamp) {

  public RawTransaction {
    Objects.requireNonNull(transactionId, "transactionId");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(amountCents, "amountCents");
    Objects.requireNonNull(currency, "currency");
    Objects.requireNonNull(eventTimestamp, "eventTimestamp");
  }

  /** The raw value of one field. */
  public RawValue get(TransactionField field) {
    return switch (field) {
      case TRANSACTION_ID -> transactionId;
      case USER_ID -> userId;
      case AMOUNT_CENTS -> amountCents;
      case CURRENCY -> currency;
      case EVENT_TIMESTAMP -> eventTimestamp;
    };
  }
}
