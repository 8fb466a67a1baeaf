package dev.tally.adapters.kafka;

/**
 * The headers {@link DeadLetterReplay} adds to each record it copies back: which dead letter it is
 * a copy of, which selection and when. Key and value stay the original bytes; the job reading the
 * topic ignores headers. All values are UTF-8 text.
 */
public final class ReplayHeaders {

  /**
   * The dead letter replayed, {@code <dead-letter topic>:<partition>:<offset>}: what a later replay
   * looks for to replay each dead letter at most once.
   */
  public static final String DEAD_LETTER = "tally.replay.dead-letter";

  /** The dead letter's reason code, as in {@link DeadLetterHeaders#REASON}. */
  public static final String REASON = "tally.replay.reason";

  /** Where the original record was, {@code <topic>:<partition>:<offset>}. */
  public static final String SOURCE = "tally.replay.source";

  /** The selection of the replay, as the command line gave it. */
  public static final String SELECTION = "tally.replay.selection";

  /** When the replay ran, an ISO-8601 instant. */
  public static final String TIME = "tally.replay.time";

  private ReplayHeaders() {}
}
