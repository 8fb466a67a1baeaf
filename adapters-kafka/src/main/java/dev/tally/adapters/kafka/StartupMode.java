package dev.tally.adapters.kafka;

/**
 * Where the source starts reading when the job starts without state (a restored job resumes from
 * its state).
 */
public enum StartupMode {
  /** The earliest offset still retained. */
  EARLIEST,
  /**
   * The end of each partition: only records produced from now on (the seed's {@code
   * latest-offset}).
   */
  LATEST,
  /** The consumer group's committed offsets, with a fallback where the group has none. */
  COMMITTED,
  /** The first offset whose record timestamp is at or after a given instant. */
  TIMESTAMP
}
