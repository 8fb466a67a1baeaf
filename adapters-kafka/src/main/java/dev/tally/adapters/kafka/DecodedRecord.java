package dev.tally.adapters.kafka;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.transaction.SourcedTransaction;

/**
 * What the Kafka source emits for one record: exactly one of an accepted transaction or a
 * rejection. A plain record with two nullable fields rather than a sealed hierarchy, so Flink
 * serializes it with its POJO serializer instead of falling back to Kryo.
 *
 * @param accepted the decoded transaction, or {@code null} when rejected
 * @param rejected the rejection, or {@code null} when accepted
 */
public record DecodedRecord(SourcedTransaction accepted, RejectedRecord rejected) {

  public DecodedRecord {
    if ((accepted == null) == (rejected == null)) {
      throw new IllegalArgumentException("exactly one of accepted and rejected must be set");
    }
  }

  static DecodedRecord accept(SourcedTransaction transaction) {
    return new DecodedRecord(transaction, null);
  }

  static DecodedRecord reject(RejectedRecord rejection) {
    return new DecodedRecord(null, rejection);
  }

  /** Whether the record was accepted. */
  public boolean isAccepted() {
    return accepted != null;
  }

  /** The record's offset in its source partition. */
  long offset() {
    return accepted != null ? accepted.source().offset() : rejected.source().offset();
  }
}
