package dev.tally.domain.rejection;

import dev.tally.domain.transaction.SourceRecord;
import java.util.Objects;

/**
 * A record that will not be counted, ready for the dead-letter topic: the verdict plus the
 * untouched source record.
 *
 * @param reason why it was rejected
 * @param message the human-readable detail
 * @param source where it came from, with its original key and value bytes
 */
public record RejectedRecord(RejectionReason reason, String message, SourceRecord source) {

  public RejectedRecord {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(source, "source");
  }

  /** Pairs a rejection verdict with the record it judges. */
  public static RejectedRecord of(Rejection rejection, SourceRecord source) {
    return new RejectedRecord(rejection.reason(), rejection.message(), source);
  }
}
