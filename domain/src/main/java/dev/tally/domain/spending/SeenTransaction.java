package dev.tally.domain.spending;

import dev.tally.domain.transaction.Transaction;

/**
 * What a {@link UserLedger} remembers of a counted transaction to tell exact duplicates from
 * conflicting ones: its content, not its bytes (the id and user are the keys it is kept under).
 *
 * @param amountCents the counted amount
 * @param currency the counted currency
 * @param eventTimeMillis the counted event time
 */
public record SeenTransaction(long amountCents, String currency, long eventTimeMillis) {

  /** What is remembered of {@code tx} once it is counted. */
  public static SeenTransaction of(Transaction tx) {
    return new SeenTransaction(tx.amountCents(), tx.currency(), tx.eventTimeMillis());
  }

  /** Whether {@code tx} (same id and user) carries the same content. */
  boolean sameContentAs(Transaction tx) {
    return amountCents == tx.amountCents()
        && eventTimeMillis == tx.eventTimeMillis()
        && currency.equals(tx.currency());
  }
}
