package dev.tally.adapters.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Pure decision whether the sink's restored state can go on exactly against the table as it is now
 * (docs/behaviour.md "Upgrades and restores").
 *
 * <p>Iceberg's committer (1.11 {@code IcebergCommitter}, {@code
 * SinkUtil.getMaxCommittedCheckpointId}) decides what a restored committable needs by the newest
 * snapshot of the committable's job id: it skips every checkpoint at or below that snapshot's
 * {@code flink.max-committed-checkpoint-id} and commits the rest. That is exact only when the
 * restored state is the newest the table has seen. Otherwise:
 *
 * <ul>
 *   <li>an older savepoint or checkpoint (a rollback): what was committed after it is redone, rows
 *       and dead letters again; and once maintenance has expired the older job's snapshots, the
 *       committer finds none, commits the restored committables a second time, and fails on their
 *       manifests, deleted after the first commit, on every restart;
 *   <li>a job started without state under the id of a job that committed to the table (a fixed job
 *       id, apache/iceberg#10892): its checkpoints count from 1 again, and the committer skips each
 *       one up to the old job's last as already committed, losing its rows.
 * </ul>
 *
 * <p>So the sink records in its state the ids of the jobs its state went through (its lineage,
 * oldest first; a restored job adds its own) and the checkpoint it was taken at. A restore is exact
 * when the newest Flink commit in the table's main ancestry is by a job of that lineage at or below
 * that checkpoint (checkpoint ids go on increasing across restores), or there is none.
 */
final class RestoreLineage {

  /** How many job ids the state keeps: only the newest can have made the table's newest commit. */
  static final int MAX_JOBS = 100;

  private RestoreLineage() {}

  /**
   * A Flink commit of the table.
   *
   * @param snapshotId the snapshot it made
   * @param jobId its {@code flink.job-id}
   * @param checkpointId its {@code flink.max-committed-checkpoint-id}
   */
  record Commit(long snapshotId, String jobId, long checkpointId) {
    Commit {
      Objects.requireNonNull(jobId, "jobId");
    }
  }

  /** The newest Flink commit in the table's current ancestry, if any. */
  static Optional<Commit> newestCommit(Table table) {
    for (Snapshot s = table.currentSnapshot(); s != null; ) {
      Map<String, String> summary = s.summary();
      String jobId = summary.get(SnapshotRetention.FLINK_JOB_ID);
      String checkpoint = summary.get(SnapshotRetention.MAX_COMMITTED_CHECKPOINT_ID);
      if (jobId != null && checkpoint != null) {
        return Optional.of(new Commit(s.snapshotId(), jobId, Long.parseLong(checkpoint)));
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    return Optional.empty();
  }

  /**
   * Why a start cannot be exact, or empty when it can.
   *
   * @param newest the newest Flink commit of the table, if any
   * @param jobId the id of the job starting
   * @param lineage the job ids recorded in the restored state, oldest first; {@code null} for a
   *     start without state
   * @param checkpointId the checkpoint the restored state was taken at
   */
  static Optional<String> refusal(
      Optional<Commit> newest, String jobId, List<String> lineage, long checkpointId) {
    if (newest.isEmpty()) {
      return Optional.empty();
    }
    Commit commit = newest.get();
    if (lineage == null) {
      if (!commit.jobId().equals(jobId)) {
        return Optional.empty();
      }
      return Optional.of(
          "the table's newest commit (snapshot "
              + commit.snapshotId()
              + ", checkpoint "
              + commit.checkpointId()
              + ") was made by a job with this job's id, "
              + jobId
              + ", and this job starts without state: it counts checkpoints from 1 again, and"
              + " Iceberg's committer would skip each of its commits up to checkpoint "
              + commit.checkpointId()
              + " as already made (apache/iceberg#10892). Restore that job's latest checkpoint or"
              + " savepoint, or start under a new job id");
    }
    if (lineage.contains(commit.jobId()) && commit.checkpointId() <= checkpointId) {
      return Optional.empty();
    }
    return Optional.of(
        "the table has a commit made after the restored state was taken (snapshot "
            + commit.snapshotId()
            + " by job "
            + commit.jobId()
            + " at checkpoint "
            + commit.checkpointId()
            + "; the state is of checkpoint "
            + checkpointId
            + " of job "
            + lineage.get(lineage.size() - 1)
            + "): resuming an older state would commit again what the table holds since, or fail"
            + " on files that maintenance removed. Restore the latest checkpoint or savepoint of"
            + " the job that committed last, or start without state");
  }

  /**
   * The lineage to record: the restored one with {@code jobId} added once, at most {@link
   * #MAX_JOBS}.
   */
  static List<String> extend(List<String> restored, String jobId) {
    List<String> lineage = new ArrayList<>(restored == null ? List.of() : restored);
    if (lineage.isEmpty() || !lineage.get(lineage.size() - 1).equals(jobId)) {
      lineage.add(jobId);
    }
    return List.copyOf(lineage.subList(Math.max(0, lineage.size() - MAX_JOBS), lineage.size()));
  }
}
