package dev.tally.adapters.iceberg;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Pure decision of how far snapshot expiry may go without breaking a restore of the sink.
 *
 * <p>On restore, Iceberg's committer (1.11 {@code SinkUtil.getMaxCommittedCheckpointId}) walks the
 * ancestry back from the current snapshot to the first one whose summary carries its job id and a
 * {@code flink.max-committed-checkpoint-id}; if the walk finds none, it commits the restored
 * checkpoints again, and re-applied upserts would bring back old values. So the newest such
 * snapshot of this job, the <em>restore anchor</em>, and everything after it must survive. Before
 * this job has committed anything (it may have just been restored from another job's savepoint),
 * the anchor is the newest snapshot of any Flink job.
 *
 * <p>Iceberg's {@code ExpireSnapshots} keeps, walking back from the current snapshot, every
 * snapshot that is among the newest {@code retainLast} or not older than {@code expireOlderThan},
 * up to the first that is neither. The anchor is kept twice over: {@code retainLast} reaches it,
 * and {@code expireOlderThan} is at most its timestamp, so snapshots another writer commits while
 * expiry runs (Iceberg re-applies the expiry on the refreshed table) do not push it out.
 */
final class SnapshotRetention {

  static final String FLINK_JOB_ID = "flink.job-id";
  static final String MAX_COMMITTED_CHECKPOINT_ID = "flink.max-committed-checkpoint-id";

  private SnapshotRetention() {}

  /**
   * A snapshot of the current ancestry.
   *
   * @param flinkJobId the {@value #FLINK_JOB_ID} of its summary, or {@code null}
   * @param committedCheckpoint whether its summary has a {@value #MAX_COMMITTED_CHECKPOINT_ID}
   */
  record SnapshotInfo(
      long snapshotId, long timestampMillis, String flinkJobId, boolean committedCheckpoint) {

    boolean isFlinkCommit() {
      return flinkJobId != null && committedCheckpoint;
    }
  }

  /** The arguments for Iceberg's {@code ExpireSnapshots}. */
  record Expiry(long expireOlderThanMillis, int retainLast, long anchorSnapshotId) {}

  /**
   * How to expire, or empty when nothing may expire (no restore anchor in the ancestry).
   *
   * @param ancestry the current snapshot first, then its parent, and so on
   * @param jobId this job's id
   */
  static Optional<Expiry> expiry(
      List<SnapshotInfo> ancestry, String jobId, long nowMillis, Duration maxAge, int retainLast) {
    Objects.requireNonNull(jobId, "jobId");
    int anchor = indexOf(ancestry, s -> s.isFlinkCommit() && jobId.equals(s.flinkJobId()));
    if (anchor < 0) {
      anchor = indexOf(ancestry, SnapshotInfo::isFlinkCommit);
    }
    if (anchor < 0) {
      // No Flink commit in the history: a restore would not find its checkpoint either way, but a
      // table nobody has committed to from Flink yet is not worth the risk of guessing.
      return Optional.empty();
    }
    SnapshotInfo anchorSnapshot = ancestry.get(anchor);
    long olderThan = Math.min(nowMillis - maxAge.toMillis(), anchorSnapshot.timestampMillis());
    return Optional.of(
        new Expiry(olderThan, Math.max(retainLast, anchor + 1), anchorSnapshot.snapshotId()));
  }

  private static int indexOf(
      List<SnapshotInfo> ancestry, java.util.function.Predicate<SnapshotInfo> test) {
    for (int i = 0; i < ancestry.size(); i++) {
      if (test.test(ancestry.get(i))) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The snapshots of {@code ancestry} that Iceberg's rule keeps under {@code expiry}; the rest of
   * the ancestry expires. Mirrors {@code RemoveSnapshots} for the main branch, for tests and logs.
   */
  static List<SnapshotInfo> kept(List<SnapshotInfo> ancestry, Expiry expiry) {
    int kept = 0;
    for (SnapshotInfo snapshot : ancestry) {
      if (kept < expiry.retainLast()
          || snapshot.timestampMillis() >= expiry.expireOlderThanMillis()) {
        kept++;
      } else {
        break;
      }
    }
    return ancestry.subList(0, kept);
  }
}
