package dev.tally.runtime.topology;

import dev.tally.domain.transaction.Transaction;

/**
 * What the aggregator remembers of a counted transaction to tell exact duplicates from conflicting
 * ones: its content, not its bytes (the id and user are the state's keys).
 *
 * @param amountCents the counted amount
 * @param currency the counted currency
 * @param eventTimeMillis the counted event time
 */
public record SeenTransaction(long amountCents, String currency, long eventTimeMillis) {

  static SeenTransaction of(Transaction tx) {
    return new SeenTransaction(tx.amountCents(), tx.currency(), tx.eventTimeMillis());
  }

  /** Whether {@code tx} (same id and user) carries the same content. */
  boolean sameContentAs(Transaction tx) {
    return amountCents == tx.amountCents()
        && eventTimeMillis == tx.eventTimeMillis()
        && currency.equals(tx.currency());
  }
}
