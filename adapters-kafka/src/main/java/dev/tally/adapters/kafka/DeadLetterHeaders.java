package dev.tally.adapters.kafka;

/**
 * The record headers of a dead-letter record: the rejection context travels in headers so the key
 * and value stay byte-for-byte the original. All values are UTF-8 text; numbers are decimal.
 */
public final class DeadLetterHeaders {

  /** The reason code, e.g. {@code INVALID_FIELD} (see {@code RejectionReason}). */
  public static final String REASON = "tally.reason";

  /** The human-readable message: what exactly was wrong. */
  public static final String MESSAGE = "tally.message";

  /** The topic the original record was read from. */
  public static final String SOURCE_TOPIC = "tally.source.topic";

  /** Its partition. */
  public static final String SOURCE_PARTITION = "tally.source.partition";

  /** Its offset. */
  public static final String SOURCE_OFFSET = "tally.source.offset";

  /** Its Kafka record timestamp in epoch milliseconds ({@code -1} when it had none). */
  public static final String SOURCE_TIMESTAMP = "tally.source.timestamp";

  /**
   * Present only on a dead letter too large to send whole (docs/behaviour.md "Record size"): what
   * was left out, {@code value} or {@code key,value}. Without it, key and value are the original's.
   */
  public static final String OMITTED = "tally.omitted";

  /** With {@link #OMITTED}: the sizes of the original and the limit it exceeded, as text. */
  public static final String OMITTED_DETAIL = "tally.omitted.detail";

  /**
   * The lineage of the job state that wrote the dead letter: the id of the job that started it
   * without state, carried by every job restored from it since (docs/behaviour.md "Upgrades and
   * restores"). Missing on dead letters written before it was recorded.
   */
  public static final String LINEAGE = "tally.lineage";

  /**
   * The last checkpoint (or savepoint) the writing subtask had taken before it wrote the dead
   * letter, {@code 0} before its first: the dead letter is not in the state of that checkpoint, nor
   * of any before it. A restore of such a state would send it again, which the start refuses.
   */
  public static final String AFTER_CHECKPOINT = "tally.after-checkpoint";

  private DeadLetterHeaders() {}
}
