package dev.tally.domain.spending;

import dev.tally.domain.transaction.Transaction;
import java.util.Objects;

/**
 * What spending is grouped by (docs/behaviour.md "Aggregation"): a user in one currency. Amounts in
 * different currencies are never added together.
 *
 * @param userId the user
 * @param currency the ISO 4217 code
 */
public record SpendingKey(String userId, String currency) {

  public SpendingKey {
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(currency, "currency");
  }

  /** The key a transaction is counted under. */
  public static SpendingKey of(Transaction transaction) {
    return new SpendingKey(transaction.userId(), transaction.currency());
  }
}
