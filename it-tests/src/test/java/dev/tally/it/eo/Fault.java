package dev.tally.it.eo;

import java.io.Serializable;

/**
 * A fault to inject inside the running job, once: the first subtask to create {@code marker} (an
 * atomic file creation) fires it, so it neither fires twice in one run nor again after the restart
 * it causes.
 *
 * @param kind where it strikes
 * @param afterRecords {@link Kind#TASK_EXCEPTION}: after this many records in one subtask
 * @param atCheckpoint {@link Kind#CHECKPOINT_FAILURE}: in the snapshot of the first checkpoint with
 *     at least this id
 * @param marker the file whose creation claims the fault
 */
record Fault(Kind kind, long afterRecords, long atCheckpoint, String marker)
    implements Serializable {

  /** Where a fault strikes. */
  enum Kind {
    /** An exception thrown while a task processes a record. */
    TASK_EXCEPTION,
    /** An exception thrown while a task takes its snapshot for a checkpoint. */
    CHECKPOINT_FAILURE
  }
}
