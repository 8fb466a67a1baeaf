package dev.tally.domain.transaction;

import java.util.Objects;

/**
 * An accepted transaction together with the record it was read from. The source travels with the
 * transaction so that a verdict reached later in the pipeline ({@code LATE}, {@code
 * CONFLICTING_DUPLICATE}) can still send the original bytes to the dead-letter topic, unchanged.
 *
 * @param transaction the validated transaction
 * @param source the record it was decoded from
 */
public record SourcedTransaction(Transaction transaction, SourceRecord source) {

  public SourcedTransaction {
    Objects.requireNonNull(transaction, "transaction");
    Objects.requireNonNull(source, "source");
  }
}
