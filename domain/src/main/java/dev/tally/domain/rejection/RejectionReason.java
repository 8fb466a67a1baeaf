package dev.tally.domain.rejection;

/**
 * Why a source record was not counted. Every record that is not counted is sent to the dead-letter
 * topic exactly once with one of these codes (docs/behaviour.md "Rejections"); the code is a
 * stable, machine-readable contract, so constants are only ever added, never renamed.
 */
public enum RejectionReason {
  /** Not valid UTF-8 JSON, not a JSON object, or larger than the configured maximum record size. */
  MALFORMED,
  /** A required field is absent or JSON {@code null}. */
  MISSING_FIELD,
  /**
   * A field is present but breaks its rule (type, length, range, currency code, timestamp form).
   */
  INVALID_FIELD,
  /**
   * The event time lies further after the record's Kafka timestamp than the allowed skew; accepting
   * it would drag the watermark forward and make everyone else late.
   */
  FUTURE_TIMESTAMP,
  /**
   * The event's window was already final: watermark at or past window end plus allowed lateness.
   */
  LATE,
  /** A transaction id already counted for the same user arrived again with different content. */
  CONFLICTING_DUPLICATE,
  /**
   * Counting the record would push its window's exact total outside the signed 64-bit range.
   * docs/behaviour.md "Aggregation" makes overflow an error rather than a wrap, and the pipeline
   * must not fail on a record's content, so the record is rejected instead. (A Tally addition to
   * the reasons of docs/behaviour.md "Rejections".)
   */
  AMOUNT_OVERFLOW
}
