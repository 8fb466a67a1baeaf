package dev.tally.adapters.iceberg;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Tally's own table maintenance, run inside the job by one operator next to the sink (see {@link
 * TableMaintenanceFunction}): compaction of data files together with the removal of the delete
 * files it makes dangling, and snapshot expiry. On by default; validated as part of {@link
 * IcebergSinkOptions}.
 *
 * <p><b>Why compaction is not optional for this table.</b> An upsert writes an equality delete for
 * every row, first inserts included; a partition updated at every checkpoint collects a data file
 * and one or two delete files per checkpoint, and every read must apply all of them. Compaction
 * reads a partition's live rows (deletes applied), writes them anew and, in the same commit,
 * removes the old data files and every delete file that no longer applies to any remaining data
 * file. Live data and delete files then stay bounded by the number of checkpoints between two
 * compactions.
 *
 * <p><b>Why not Iceberg's Flink maintenance.</b> Iceberg 1.11's {@code TableMaintenance} exchanges
 * its records with Kryo, which a Tally job forbids ({@code pipeline.generic-types: false}), and it
 * never removes applied delete files (apache/iceberg#16138), so they grow without bound.
 *
 * <p><b>Why expiry never breaks a restore.</b> On restore, the Iceberg committer walks back from
 * the current snapshot to the newest snapshot its job committed and reads the {@code
 * flink.max-committed-checkpoint-id} of its summary, so that it does not commit a checkpoint twice.
 * Expiry therefore always keeps the newest snapshot committed by this job (or, before this job's
 * first commit, the newest committed by any Flink job) and every snapshot after it, whatever {@code
 * retainLastSnapshots} and {@code maxSnapshotAge} say. Keep {@code maxSnapshotAge} longer than the
 * oldest savepoint of another job you may resume from while this job runs. A retention set on the
 * table's main branch itself would override both in Iceberg, so expiry then does nothing.
 *
 * @param enabled run maintenance at all
 * @param compactEveryCheckpoints look for partitions to compact after this many completed
 *     checkpoints (the sink commits once per checkpoint)
 * @param compactInterval also look when this much time has passed since the last look, at the next
 *     completed checkpoint
 * @param dataFileThreshold compact a partition once it has this many live data files
 * @param deleteFileThreshold compact a partition once this many live delete files apply to its data
 *     files; 1 compacts every partition an upsert touched, which is what keeps reads fast
 * @param expireEveryCheckpoints expire snapshots after this many completed checkpoints
 * @param retainLastSnapshots never expire the newest this many snapshots
 * @param maxSnapshotAge expire only snapshots older than this
 */
public record MaintenanceOptions(
    boolean enabled,
    int compactEveryCheckpoints,
    Duration compactInterval,
    int dataFileThreshold,
    int deleteFileThreshold,
    int expireEveryCheckpoints,
    int retainLastSnapshots,
    Duration maxSnapshotAge)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /** A builder with the defaults described on each setter. */
  public static Builder builder() {
    return new Builder();
  }

  /** No maintenance at all. */
  public static MaintenanceOptions disabled() {
    return builder().enabled(false).build();
  }

  /** Every problem, each naming its key under {@code maintenance.}. */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    positive(problems, "compactEveryCheckpoints", compactEveryCheckpoints);
    positive(problems, "dataFileThreshold", dataFileThreshold);
    positive(problems, "deleteFileThreshold", deleteFileThreshold);
    positive(problems, "expireEveryCheckpoints", expireEveryCheckpoints);
    positive(problems, "retainLastSnapshots", retainLastSnapshots);
    if (dataFileThreshold == 1) {
      // One data file per partition is the compacted state: a threshold of 1 would rewrite every
      // partition at every run, forever.
      problems.add("maintenance.dataFileThreshold must be at least 2, not 1");
    }
    atLeastOneSecond(problems, "compactInterval", compactInterval);
    atLeastOneSecond(problems, "maxSnapshotAge", maxSnapshotAge);
    return problems;
  }

  private static void positive(List<String> problems, String name, int value) {
    if (value <= 0) {
      problems.add("maintenance." + name + " must be positive, not " + value);
    }
  }

  private static void atLeastOneSecond(List<String> problems, String name, Duration value) {
    if (value == null) {
      problems.add("maintenance." + name + " must be set");
    } else if (value.compareTo(Duration.ofSeconds(1)) < 0) {
      problems.add("maintenance." + name + " must be at least 1 s, not " + value);
    }
  }

  /** Builds {@link MaintenanceOptions}; setters reject {@code null}. */
  public static final class Builder {
    private boolean enabled = true;
    private int compactEveryCheckpoints = 10;
    private Duration compactInterval = Duration.ofMinutes(10);
    private int dataFileThreshold = 2;
    private int deleteFileThreshold = 1;
    private int expireEveryCheckpoints = 10;
    private int retainLastSnapshots = 100;
    private Duration maxSnapshotAge = Duration.ofHours(1);

    private Builder() {}

    /** Default {@code true}. */
    public Builder enabled(boolean value) {
      this.enabled = value;
      return this;
    }

    /** Default 10. */
    public Builder compactEveryCheckpoints(int value) {
      this.compactEveryCheckpoints = value;
      return this;
    }

    /** Default 10 minutes. */
    public Builder compactInterval(Duration value) {
      this.compactInterval = Objects.requireNonNull(value, "compactInterval");
      return this;
    }

    /** Default 2. */
    public Builder dataFileThreshold(int value) {
      this.dataFileThreshold = value;
      return this;
    }

    /** Default 1. */
    public Builder deleteFileThreshold(int value) {
      this.deleteFileThreshold = value;
      return this;
    }

    /** Default 10. */
    public Builder expireEveryCheckpoints(int value) {
      this.expireEveryCheckpoints = value;
      return this;
    }

    /** Default 100. */
    public Builder retainLastSnapshots(int value) {
      this.retainLastSnapshots = value;
      return this;
    }

    /** Default 1 hour. */
    public Builder maxSnapshotAge(Duration value) {
      this.maxSnapshotAge = Objects.requireNonNull(value, "maxSnapshotAge");
      return this;
    }

    /** The options, unvalidated: {@link IcebergSinkOptions.Builder#build()} checks the whole. */
    public MaintenanceOptions build() {
      return new MaintenanceOptions(
          enabled,
          compactEveryCheckpoints,
          compactInterval,
          dataFileThreshold,
          deleteFileThreshold,
          expireEveryCheckpoints,
          retainLastSnapshots,
          maxSnapshotAge);
    }
  }
}
