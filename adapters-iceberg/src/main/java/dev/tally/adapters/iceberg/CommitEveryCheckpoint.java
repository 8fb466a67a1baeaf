package dev.tally.adapters.iceberg;

import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes Iceberg's committer commit a snapshot for every checkpoint that completes, also one whose
 * writers wrote no file, so that the table records every checkpoint of the job that writes it.
 *
 * <p>Why: the sink's start check ({@link RestoreLineage}) sees a rollback only through the table's
 * newest Flink commit. Iceberg's committer (1.11 {@code IcebergCommitter#commitPendingResult})
 * skips the commit of a checkpoint without files unless it is the n-th such checkpoint in a row, n
 * being the table property {@value #PROPERTY} (10 when unset); a span after a savepoint that
 * emitted no row, only dead letters, then left no trace in the table, and restoring that savepoint
 * sent its dead letters again. With 1, every checkpoint leaves a snapshot carrying its {@code
 * flink.max-committed-checkpoint-id} and job id, so any completed checkpoint after the restored
 * state is seen. The committer reads the property from the table when it is created, on every start
 * of its task, so it must hold before the job's tasks start.
 *
 * <p>Set on the spending table only: every job writes it, so its history alone shows every
 * checkpoint of the job, and the anomaly table's own start check adds nothing for the same job.
 */
final class CommitEveryCheckpoint {

  private static final Logger LOG = LoggerFactory.getLogger(CommitEveryCheckpoint.class);

  /** Iceberg's table property: commit an empty snapshot after this many empty checkpoints. */
  static final String PROPERTY = "flink.max-continuous-empty-commits";

  /** Every empty checkpoint commits. */
  static final String VALUE = "1";

  private CommitEveryCheckpoint() {}

  /**
   * Sets {@value #PROPERTY} to {@value #VALUE} on {@code table} unless it holds it already: a table
   * created by an older release, or one whose property was changed since.
   */
  static void require(Table table, String name) {
    String before = table.properties().get(PROPERTY);
    if (VALUE.equals(before)) {
      return;
    }
    table.updateProperties().set(PROPERTY, VALUE).commit();
    table.refresh();
    LOG.info(
        "Iceberg table {}: table property {} set to {} (was {}), so that every completed"
            + " checkpoint commits a snapshot and a restore of an older state is seen",
        name,
        PROPERTY,
        VALUE,
        before == null ? "unset, 10" : before);
  }
}
