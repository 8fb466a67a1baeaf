package dev.tally.adapters.iceberg;

import dev.tally.adapters.iceberg.SnapshotRetention.Expiry;
import dev.tally.adapters.iceberg.SnapshotRetention.SnapshotInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshot expiry with Iceberg's core {@code ExpireSnapshots}, bounded by {@link SnapshotRetention}
 * so that the sink's committer still finds its last committed checkpoint after a restore. Files
 * only the expired snapshots referenced (data and delete files replaced by compaction, old
 * manifests) are deleted with them.
 */
final class SnapshotExpiry {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotExpiry.class);

  private final Duration maxAge;
  private final int retainLast;

  SnapshotExpiry(Duration maxAge, int retainLast) {
    this.maxAge = maxAge;
    this.retainLast = retainLast;
  }

  /**
   * Expires what may expire; returns the number of snapshots removed.
   *
   * @param stopped whether the run must stop (its task is cancelled): asked, with the thread's
   *     interrupt status, before the one expiry commit; a stopped run expires nothing
   */
  int run(Table table, String jobId, BooleanSupplier stopped) {
    table.refresh();
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return 0;
    }
    List<SnapshotInfo> ancestry = new ArrayList<>();
    for (Snapshot s = current; s != null; ) {
      Map<String, String> summary = s.summary();
      ancestry.add(
          new SnapshotInfo(
              s.snapshotId(),
              s.timestampMillis(),
              summary.get(SnapshotRetention.FLINK_JOB_ID),
              summary.containsKey(SnapshotRetention.MAX_COMMITTED_CHECKPOINT_ID)));
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    Optional<Expiry> expiry =
        SnapshotRetention.expiry(ancestry, jobId, System.currentTimeMillis(), maxAge, retainLast);
    if (expiry.isEmpty()) {
      LOG.info("No snapshot of {} expires: no Flink commit in its history", table.name());
      return 0;
    }
    SnapshotRef main = table.refs().get(SnapshotRef.MAIN_BRANCH);
    if (main != null && (main.minSnapshotsToKeep() != null || main.maxSnapshotAgeMs() != null)) {
      // Iceberg's RemoveSnapshots applies a branch's own retention instead of expireOlderThan and
      // retainLast, so the restore anchor would be up to that setting, not to this class.
      LOG.warn(
          "No snapshot of {} expires: its main branch sets its own retention (min snapshots to"
              + " keep {}, max snapshot age {} ms), which would override what keeps the restore"
              + " anchor {}; remove it from the branch to let the job expire snapshots",
          table.name(),
          main.minSnapshotsToKeep(),
          main.maxSnapshotAgeMs(),
          expiry.get().anchorSnapshotId());
      return 0;
    }
    int before = count(table);
    if (stopped.getAsBoolean() || Thread.currentThread().isInterrupted()) {
      LOG.info("No snapshot of {} expires: the run was stopped", table.name());
      return 0;
    }
    // Iceberg's default cleanup level deletes the files only the expired snapshots referenced.
    table
        .expireSnapshots()
        .expireOlderThan(expiry.get().expireOlderThanMillis())
        .retainLast(expiry.get().retainLast())
        .commit();
    table.refresh();
    int expired = Math.max(0, before - count(table));
    LOG.info(
        "Expired {} snapshots of {}, keeping the restore anchor {} and everything after it",
        expired,
        table.name(),
        expiry.get().anchorSnapshotId());
    return expired;
  }

  private static int count(Table table) {
    int n = 0;
    for (Snapshot ignored : table.snapshots()) {
      n++;
    }
    return n;
  }
}
