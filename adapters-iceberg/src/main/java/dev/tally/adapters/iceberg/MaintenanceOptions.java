package dev.tally.adapters.iceberg;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Table maintenance run inside the sink's job by Iceberg's Flink maintenance (the {@code
 * IcebergSink} post-commit topology): compaction, snapshot expiry and orphan-file removal. On by
 * default; validated as part of {@link IcebergSinkOptions}.
 *
 * <p><b>Why compaction is not optional for this table.</b> An upsert writes an equality delete for
 * every row, first inserts included; a partition updated at every checkpoint collects one data file
 * and one equality-delete file per checkpoint and writer, and every read must apply all of them.
 * Compaction rewrites the data files with the deletes applied ({@code delete-file-threshold}
 * selects every file that has one), which keeps the live data files bounded.
 *
 * <p><b>Known limit (Iceberg 1.11).</b> The Flink maintenance has no step that removes delete files
 * once compaction has applied them (apache/iceberg#16138; Spark has {@code remove-dangling-deletes}
 * and {@code rewrite_position_delete_files}). They no longer apply to any row, so results stay
 * correct and data files stay bounded, but the delete files in the metadata keep growing with the
 * number of commits until such a Spark action (or a later Iceberg) removes them.
 *
 * <p><b>Why expiry never breaks a restore.</b> On restore, the Iceberg committer walks back from
 * the current snapshot to the last snapshot its job committed and reads the {@code
 * flink.max-committed-checkpoint-id} in its summary, so that it does not commit a checkpoint twice.
 * That snapshot must therefore still be in the table's history. Snapshots expire only when they are
 * both older than {@code maxSnapshotAge} and not among the {@code retainLastSnapshots} newest; a
 * running job commits every checkpoint and maintenance adds only a few snapshots between two
 * commits, so its last commit is always retained. Keep {@code maxSnapshotAge} longer than the
 * oldest checkpoint or savepoint of another job you may resume from while this job runs.
 * Maintenance runs only while the job runs, so a stopped job's last commit survives the downtime.
 *
 * <p><b>Kryo.</b> Iceberg 1.11's maintenance operators exchange their internal records with Kryo,
 * so a job with maintenance on must run with {@code pipeline.generic-types: true}; the sink checks
 * this when attached. The write path (rows, committables) never needs Kryo.
 *
 * <p><b>Locking.</b> No external lock is configured: Iceberg then serialises the maintenance tasks
 * of this job through Flink's operator coordinators. Another engine maintaining the same table
 * concurrently (e.g. a Spark compaction) is resolved by Iceberg's optimistic commit validation.
 *
 * @param enabled run maintenance at all
 * @param compactEveryCommits compact after this many sink commits (checkpoints)
 * @param compactInterval also compact when this much time has passed since the last compaction
 * @param deleteFileThreshold rewrite a data file once this many delete files apply to it; 1
 *     rewrites every data file an upsert touched, which is what keeps reads fast
 * @param expireEveryCommits expire snapshots after this many sink commits
 * @param retainLastSnapshots never expire the newest this many snapshots
 * @param maxSnapshotAge expire only snapshots older than this
 * @param deleteOrphanFiles remove files no snapshot references (left by failed checkpoints)
 * @param orphanFileMinAge remove only orphans older than this, so that files of checkpoints still
 *     in flight are never touched
 * @param orphanFileInterval look for orphans this often (it lists the whole table location)
 * @param rateLimit start maintenance tasks at most this often
 * @param lockCheckDelay when a task is due while another one runs (tasks never overlap), look again
 *     after this long
 * @param properties further Iceberg maintenance settings passed unchanged; each key must start with
 *     {@value #PROPERTY_PREFIX} (e.g. {@code flink-maintenance.lock.type} for a JDBC or ZooKeeper
 *     lock, {@code flink-maintenance.rewrite.max-bytes})
 */
public record MaintenanceOptions(
    boolean enabled,
    int compactEveryCommits,
    Duration compactInterval,
    int deleteFileThreshold,
    int expireEveryCommits,
    int retainLastSnapshots,
    Duration maxSnapshotAge,
    boolean deleteOrphanFiles,
    Duration orphanFileMinAge,
    Duration orphanFileInterval,
    Duration rateLimit,
    Duration lockCheckDelay,
    Map<String, String> properties) {

  /** The prefix of Iceberg's Flink maintenance settings. */
  public static final String PROPERTY_PREFIX = "flink-maintenance.";

  public MaintenanceOptions {
    properties = properties == null ? Map.of() : Map.copyOf(properties);
  }

  /** A builder with the defaults described on each setter. */
  public static Builder builder() {
    return new Builder();
  }

  /** No maintenance at all. */
  public static MaintenanceOptions disabled() {
    return builder().enabled(false).build();
  }

  /** Secret-looking pass-through settings (e.g. a lock database password) masked: safe to log. */
  @Override
  public String toString() {
    return "MaintenanceOptions[enabled="
        + enabled
        + ", compactEveryCommits="
        + compactEveryCommits
        + ", compactInterval="
        + compactInterval
        + ", deleteFileThreshold="
        + deleteFileThreshold
        + ", expireEveryCommits="
        + expireEveryCommits
        + ", retainLastSnapshots="
        + retainLastSnapshots
        + ", maxSnapshotAge="
        + maxSnapshotAge
        + ", deleteOrphanFiles="
        + deleteOrphanFiles
        + ", orphanFileMinAge="
        + orphanFileMinAge
        + ", orphanFileInterval="
        + orphanFileInterval
        + ", rateLimit="
        + rateLimit
        + ", lockCheckDelay="
        + lockCheckDelay
        + ", properties="
        + Secrets.masked(properties)
        + "]";
  }

  /** Every problem, each naming its key under {@code maintenance.}. */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    positive(problems, "compactEveryCommits", compactEveryCommits);
    positive(problems, "deleteFileThreshold", deleteFileThreshold);
    positive(problems, "expireEveryCommits", expireEveryCommits);
    positive(problems, "retainLastSnapshots", retainLastSnapshots);
    atLeastOneSecond(problems, "compactInterval", compactInterval);
    atLeastOneSecond(problems, "maxSnapshotAge", maxSnapshotAge);
    atLeastOneSecond(problems, "orphanFileMinAge", orphanFileMinAge);
    atLeastOneSecond(problems, "orphanFileInterval", orphanFileInterval);
    atLeastOneSecond(problems, "rateLimit", rateLimit);
    atLeastOneSecond(problems, "lockCheckDelay", lockCheckDelay);
    for (String key : properties.keySet()) {
      if (!key.startsWith(PROPERTY_PREFIX)) {
        problems.add(
            "maintenance property "
                + key
                + " is not an Iceberg maintenance setting ("
                + PROPERTY_PREFIX
                + "*)");
      }
    }
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
      // Iceberg's maintenance settings count whole seconds.
      problems.add("maintenance." + name + " must be at least 1 s, not " + value);
    }
  }

  /** Builds {@link MaintenanceOptions}; setters reject {@code null}. */
  public static final class Builder {
    private boolean enabled = true;
    private int compactEveryCommits = 10;
    private Duration compactInterval = Duration.ofMinutes(10);
    private int deleteFileThreshold = 1;
    private int expireEveryCommits = 10;
    private int retainLastSnapshots = 100;
    private Duration maxSnapshotAge = Duration.ofHours(1);
    private boolean deleteOrphanFiles = true;
    private Duration orphanFileMinAge = Duration.ofDays(3);
    private Duration orphanFileInterval = Duration.ofDays(1);
    private Duration rateLimit = Duration.ofMinutes(1);
    private Duration lockCheckDelay = Duration.ofSeconds(30);
    private final Map<String, String> properties = new LinkedHashMap<>();

    private Builder() {}

    /** Default {@code true}. */
    public Builder enabled(boolean value) {
      this.enabled = value;
      return this;
    }

    /** Default 10. */
    public Builder compactEveryCommits(int value) {
      this.compactEveryCommits = value;
      return this;
    }

    /** Default 10 minutes. */
    public Builder compactInterval(Duration value) {
      this.compactInterval = Objects.requireNonNull(value, "compactInterval");
      return this;
    }

    /** Default 1. */
    public Builder deleteFileThreshold(int value) {
      this.deleteFileThreshold = value;
      return this;
    }

    /** Default 10. */
    public Builder expireEveryCommits(int value) {
      this.expireEveryCommits = value;
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

    /** Default {@code true}. */
    public Builder deleteOrphanFiles(boolean value) {
      this.deleteOrphanFiles = value;
      return this;
    }

    /** Default 3 days. */
    public Builder orphanFileMinAge(Duration value) {
      this.orphanFileMinAge = Objects.requireNonNull(value, "orphanFileMinAge");
      return this;
    }

    /** Default 1 day. */
    public Builder orphanFileInterval(Duration value) {
      this.orphanFileInterval = Objects.requireNonNull(value, "orphanFileInterval");
      return this;
    }

    /** Default 1 minute. */
    public Builder rateLimit(Duration value) {
      this.rateLimit = Objects.requireNonNull(value, "rateLimit");
      return this;
    }

    /** Default 30 seconds. */
    public Builder lockCheckDelay(Duration value) {
      this.lockCheckDelay = Objects.requireNonNull(value, "lockCheckDelay");
      return this;
    }

    /** Adds one pass-through setting; see {@link MaintenanceOptions#properties()}. */
    public Builder property(String key, String value) {
      properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** The options, unvalidated: {@link IcebergSinkOptions.Builder#build()} checks the whole. */
    public MaintenanceOptions build() {
      return new MaintenanceOptions(
          enabled,
          compactEveryCommits,
          compactInterval,
          deleteFileThreshold,
          expireEveryCommits,
          retainLastSnapshots,
          maxSnapshotAge,
          deleteOrphanFiles,
          orphanFileMinAge,
          orphanFileInterval,
          rateLimit,
          lockCheckDelay,
          properties);
    }
  }
}
