package dev.tally.it.eo;

import java.io.Serializable;

/**
 * A fault to inject inside the running job, once: the first subtask to create {@code marker} (an
 * atomic file creation) fires it, so it neither fires twice in one run nor again after the restart
 * it causes.
 *
 * @param kind where it strikes
 * @param afterRecords {@link Kind#TASK_EXCEPTION}: after this many records in one subtask; {@link
 *     Kind#PACE}: from this record on in every subtask
 * @param atCheckpoint {@link Kind#CHECKPOINT_FAILURE}: in the snapshot of the first checkpoint with
 *     at least this id
 * @param marker the file whose creation claims the fault; unused by {@link Kind#PACE}
 */
record Fault(Kind kind, long afterRecords, long atCheckpoint, String marker)
    implements Serializable {

  /**
   * Paces every subtask of a bounded job from its first record, so that the job is still reading
   * when a scenario stops it with a savepoint: a stop that meets a subtask finishing its input is
   * declined ("task is closing"), and a job that read everything was not stopped mid-way.
   */
  static Fault paced() {
    return new Fault(Kind.PACE, 0, 0, null);
  }

  /** Where a fault strikes. */
  enum Kind {
    /** An exception thrown while a task processes a record. */
    TASK_EXCEPTION,
    /** An exception thrown while a task takes its snapshot for a checkpoint. */
    CHECKPOINT_FAILURE,
    /**
     * Not a failure: every subtask sleeps {@value FaultInjector#PACE_MILLIS} ms per record, so a
     * bounded job reads for minutes instead of seconds and never ends before it is stopped.
     */
    PACE
  }
}
