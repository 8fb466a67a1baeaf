package dev.tally.adapters.iceberg;

import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigReader;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Tally's own table maintenance, run inside the job by one operator next to the sink (see {@link
 * TableMaintenanceFunction}): compaction of data files together with the removal of the delete
 * files it makes dangling, and snapshot expiry; with the declarations of its keys. Checked as part
 * of {@link IcebergSinkConfig}.
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
 * @param enabled see {@link #ENABLED}
 * @param compactEveryCheckpoints see {@link #COMPACT_EVERY_CHECKPOINTS}
 * @param compactInterval see {@link #COMPACT_INTERVAL}; the look happens at the next completed
 *     checkpoint
 * @param dataFileThreshold see {@link #DATA_FILE_THRESHOLD}
 * @param deleteFileThreshold see {@link #DELETE_FILE_THRESHOLD}; 1 compacts every partition an
 *     upsert touched, which is what keeps reads fast
 * @param expireEveryCheckpoints see {@link #EXPIRE_EVERY_CHECKPOINTS}
 * @param retainLastSnapshots see {@link #RETAIN_LAST_SNAPSHOTS}
 * @param maxSnapshotAge see {@link #MAX_SNAPSHOT_AGE}
 */
public record MaintenanceConfig(
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

  /** The most checkpoints or files a threshold may name: beyond it maintenance never runs. */
  private static final int MOST = 1_000_000;

  /** Run maintenance at all. */
  public static final ConfigKey<Boolean> ENABLED =
      ConfigKey.bool("iceberg.maintenance.enabled")
          .defaultValue(true)
          .description(
              "Tally's in-job table maintenance: compaction that also removes the delete files it"
                  + " makes dangling, and snapshot expiry that keeps what a restore needs. One"
                  + " operator, no Kryo.");

  /** How often to look for partitions to compact, in checkpoints. */
  public static final ConfigKey<Integer> COMPACT_EVERY_CHECKPOINTS =
      ConfigKey.integer("iceberg.maintenance.compact-every-checkpoints")
          .defaultValue(10)
          .between(1, MOST)
          .description(
              "Look for partitions to compact after this many completed checkpoints (the sink"
                  + " commits once per checkpoint).");

  /** How often to look for partitions to compact, in time. */
  public static final ConfigKey<Duration> COMPACT_INTERVAL =
      ConfigKey.duration("iceberg.maintenance.compact-interval")
          .defaultValue(Duration.ofMinutes(10))
          .required()
          .atLeast(Duration.ofSeconds(1))
          .description("Also look when this much time has passed since the last look.");

  /**
   * When a partition has too many data files. One data file per partition is the compacted state: a
   * threshold of 1 would rewrite every partition at every run, forever.
   */
  public static final ConfigKey<Integer> DATA_FILE_THRESHOLD =
      ConfigKey.integer("iceberg.maintenance.data-file-threshold")
          .defaultValue(2)
          .between(2, MOST)
          .description("Compact a partition once it has this many live data files (at least 2).");

  /** When a partition has too many delete files. */
  public static final ConfigKey<Integer> DELETE_FILE_THRESHOLD =
      ConfigKey.integer("iceberg.maintenance.delete-file-threshold")
          .defaultValue(1)
          .between(1, MOST)
          .description(
              "Compact a partition once this many live delete files apply to its data files.");

  /** How often to expire snapshots, in checkpoints. */
  public static final ConfigKey<Integer> EXPIRE_EVERY_CHECKPOINTS =
      ConfigKey.integer("iceberg.maintenance.expire-every-checkpoints")
          .defaultValue(10)
          .between(1, MOST)
          .description("Expire snapshots after this many completed checkpoints.");

  /** Snapshots never expired. */
  public static final ConfigKey<Integer> RETAIN_LAST_SNAPSHOTS =
      ConfigKey.integer("iceberg.maintenance.retain-last-snapshots")
          .defaultValue(100)
          .between(1, MOST)
          .description("Snapshots always kept.");

  /** Snapshots older than this expire. */
  public static final ConfigKey<Duration> MAX_SNAPSHOT_AGE =
      ConfigKey.duration("iceberg.maintenance.max-snapshot-age")
          .defaultValue(Duration.ofHours(1))
          .required()
          .atLeast(Duration.ofSeconds(1))
          .description(
              "Snapshots older than this (beyond the retained ones) expire. The newest snapshot"
                  + " this job committed and everything after it never expire, so a restore finds"
                  + " its last committed checkpoint.");

  /** A builder with every key's declared default. */
  public static Builder builder() {
    return new Builder();
  }

  /** No maintenance at all. */
  public static MaintenanceConfig disabled() {
    return builder().enabled(false).build();
  }

  /** Reads the maintenance keys, unchecked: {@link IcebergSinkConfig} checks the whole. */
  static MaintenanceConfig read(ConfigReader r) {
    return new MaintenanceConfig(
        r.get(ENABLED),
        r.get(COMPACT_EVERY_CHECKPOINTS),
        r.get(COMPACT_INTERVAL),
        r.get(DATA_FILE_THRESHOLD),
        r.get(DELETE_FILE_THRESHOLD),
        r.get(EXPIRE_EVERY_CHECKPOINTS),
        r.get(RETAIN_LAST_SNAPSHOTS),
        r.get(MAX_SNAPSHOT_AGE));
  }

  /** Every problem, each naming its key. */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    COMPACT_EVERY_CHECKPOINTS.check(compactEveryCheckpoints, problems);
    COMPACT_INTERVAL.check(compactInterval, problems);
    DATA_FILE_THRESHOLD.check(dataFileThreshold, problems);
    DELETE_FILE_THRESHOLD.check(deleteFileThreshold, problems);
    EXPIRE_EVERY_CHECKPOINTS.check(expireEveryCheckpoints, problems);
    RETAIN_LAST_SNAPSHOTS.check(retainLastSnapshots, problems);
    MAX_SNAPSHOT_AGE.check(maxSnapshotAge, problems);
    return problems;
  }

  /** Builds {@link MaintenanceConfig} in code; setters reject {@code null}. */
  public static final class Builder {
    private boolean enabled = ENABLED.defaultValue();
    private int compactEveryCheckpoints = COMPACT_EVERY_CHECKPOINTS.defaultValue();
    private Duration compactInterval = COMPACT_INTERVAL.defaultValue();
    private int dataFileThreshold = DATA_FILE_THRESHOLD.defaultValue();
    private int deleteFileThreshold = DELETE_FILE_THRESHOLD.defaultValue();
    private int expireEveryCheckpoints = EXPIRE_EVERY_CHECKPOINTS.defaultValue();
    private int retainLastSnapshots = RETAIN_LAST_SNAPSHOTS.defaultValue();
    private Duration maxSnapshotAge = MAX_SNAPSHOT_AGE.defaultValue();

    private Builder() {}

    /** See {@link MaintenanceConfig#ENABLED}. */
    public Builder enabled(boolean value) {
      this.enabled = value;
      return this;
    }

    /** See {@link MaintenanceConfig#COMPACT_EVERY_CHECKPOINTS}. */
    public Builder compactEveryCheckpoints(int value) {
      this.compactEveryCheckpoints = value;
      return this;
    }

    /** See {@link MaintenanceConfig#COMPACT_INTERVAL}. */
    public Builder compactInterval(Duration value) {
      this.compactInterval = Objects.requireNonNull(value, "compactInterval");
      return this;
    }

    /** See {@link MaintenanceConfig#DATA_FILE_THRESHOLD}. */
    public Builder dataFileThreshold(int value) {
      this.dataFileThreshold = value;
      return this;
    }

    /** See {@link MaintenanceConfig#DELETE_FILE_THRESHOLD}. */
    public Builder deleteFileThreshold(int value) {
      this.deleteFileThreshold = value;
      return this;
    }

    /** See {@link MaintenanceConfig#EXPIRE_EVERY_CHECKPOINTS}. */
    public Builder expireEveryCheckpoints(int value) {
      this.expireEveryCheckpoints = value;
      return this;
    }

    /** See {@link MaintenanceConfig#RETAIN_LAST_SNAPSHOTS}. */
    public Builder retainLastSnapshots(int value) {
      this.retainLastSnapshots = value;
      return this;
    }

    /** See {@link MaintenanceConfig#MAX_SNAPSHOT_AGE}. */
    public Builder maxSnapshotAge(Duration value) {
      this.maxSnapshotAge = Objects.requireNonNull(value, "maxSnapshotAge");
      return this;
    }

    /** The settings, unchecked: {@link IcebergSinkConfig.Builder#build()} checks the whole. */
    public MaintenanceConfig build() {
      return new MaintenanceConfig(
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
