package dev.tally.adapters.kafka;

import java.util.List;
import java.util.Objects;

/**
 * Pure decision whether restored dead-letter state would send dead letters again that the
 * dead-letter topic already holds (docs/behaviour.md "Upgrades and restores").
 *
 * <p>A checkpoint's dead-letter commit and its table commit are made by different tasks once the
 * checkpoint completes, in no fixed order. When the job stops after the dead letters were committed
 * and before the table commit, the table's newest commit is of an earlier checkpoint, and the
 * table's own restore check lets a restore of the state before the latest one go on: it would read,
 * reject and send that span's records again. The dead-letter topic shows it: every dead letter
 * carries the lineage of the state that wrote it and the last checkpoint its writer had taken
 * ({@link DeadLetterHeaders}), and a committed one of the restored lineage written after the
 * restored checkpoint refuses the start.
 *
 * <p>Checkpoint ids go on increasing across restores of one lineage, and a branch taken from an
 * earlier state (a second restore of one savepoint) carries the same lineage, so "written after
 * checkpoint {@code p ≥ n}" means "not in the state of checkpoint {@code n}" on every branch.
 */
final class DeadLetterRollback {

  /**
   * How far behind the newest checkpoint a subtask's writer can be, in checkpoints: the most
   * checkpoints that may be in flight at once ({@code checkpoints.max-concurrent} is at most 16). A
   * dead letter written after checkpoint {@code p ≥ n} lies, in its partition, after every one of
   * the same lineage written after a checkpoint below {@code n - 1 - MAX_IN_FLIGHT}: all of those
   * were sent and flushed before checkpoint {@code n} was triggered. So the scan of a partition,
   * newest first, stops at the first of those.
   */
  static final int MAX_IN_FLIGHT = 16;

  private DeadLetterRollback() {}

  /**
   * A dead letter of the topic, read back.
   *
   * @param id {@code <topic>:<partition>:<offset>}
   * @param lineage its {@link DeadLetterHeaders#LINEAGE}, empty when it has none
   * @param afterCheckpoint its {@link DeadLetterHeaders#AFTER_CHECKPOINT}, -1 when it has none
   */
  record Letter(String id, String lineage, long afterCheckpoint) {
    Letter {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(lineage, "lineage");
    }
  }

  /** What a look at some of a partition's newest dead letters decided. */
  sealed interface Verdict {}

  /** A dead letter the restored state would send again. */
  record SentAgain(Letter letter) implements Verdict {}

  /** Nothing older in this partition can be sent again: stop reading it. */
  record Clear() implements Verdict {}

  /** Nothing found yet: read further back. */
  record ReadOn() implements Verdict {}

  /**
   * Judges a run of a partition's dead letters, newest first.
   *
   * @param newestFirst the dead letters, newest first
   * @param lineage the restored state's lineage
   * @param checkpoint the checkpoint the state was taken at
   */
  static Verdict judge(List<Letter> newestFirst, String lineage, long checkpoint) {
    for (Letter letter : newestFirst) {
      if (!letter.lineage().equals(lineage) || letter.afterCheckpoint() < 0) {
        continue;
      }
      if (letter.afterCheckpoint() >= checkpoint) {
        return new SentAgain(letter);
      }
      if (letter.afterCheckpoint() < checkpoint - 1 - MAX_IN_FLIGHT) {
        return new Clear();
      }
    }
    return new ReadOn();
  }

  /** The reason a start is refused, naming the dead letter and both checkpoints. */
  static String refusal(String topic, Letter letter, long checkpoint) {
    return "the dead-letter topic "
        + topic
        + " has a dead letter written after the restored state was taken ("
        + letter.id()
        + ", written after checkpoint "
        + letter.afterCheckpoint()
        + " of the state's lineage "
        + letter.lineage()
        + "; the state is of checkpoint "
        + checkpoint
        + "): resuming it would send that span's dead letters again. Restore the latest"
        + " checkpoint or savepoint, or start without state";
  }
}
