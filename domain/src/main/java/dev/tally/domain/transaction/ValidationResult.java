package dev.tally.domain.transaction;

import dev.tally.domain.rejection.Rejection;
import java.util.Objects;

/**
 * What {@link TransactionValidator} decided about one record: a transaction, or a rejection saying
 * why not.
 */
public sealed interface ValidationResult {

  /** The record passed every rule. */
  record Valid(Transaction transaction) implements ValidationResult {
    public Valid {
      Objects.requireNonNull(transaction, "transaction");
    }
  }

  /** The record broke a rule; the rejection names the reason code and every problem found. */
  record Invalid(Rejection rejection) implements ValidationResult {
    public Invalid {
      Objects.requireNonNull(rejection, "rejection");
    }
  }
}
