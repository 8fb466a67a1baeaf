package dev.tally.runtime.config;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.TaskManagerOptions;

/**
 * Job keys.
 *
 * @param name the job name shown in the Flink UI
 * @param parallelism default operator parallelism; 0 keeps the cluster's default
 * @param maxParallelism key groups: the most the job can ever be rescaled to; fixed for the life of
 *     its state
 * @param objectReuse let chained operators pass records without copying (Tally's functions keep no
 *     references)
 * @param localManagedMemoryBytes managed memory of the embedded cluster of a {@code --local} run
 */
public record JobConfig(
    String name,
    int parallelism,
    int maxParallelism,
    boolean objectReuse,
    long localManagedMemoryBytes) {

  /** Job name. Default {@code tally}. */
  public static final String NAME = "job.name";

  /** Default parallelism; 0 keeps the cluster's. Default 0. */
  public static final String PARALLELISM = "job.parallelism";

  /** Maximum parallelism (key groups); never change it for a job with state. Default 128. */
  public static final String MAX_PARALLELISM = "job.max-parallelism";

  /** Object reuse between chained operators. Default true. */
  public static final String OBJECT_REUSE = "job.object-reuse";

  /**
   * Managed memory of the embedded cluster in a {@code --local} run (RocksDB's block cache and
   * write buffers, shared by all its slots). Ignored on a real cluster, whose TaskManagers size
   * their own. Default 512 MiB: Flink's local default of 128 MiB starves RocksDB once the dedupe
   * ids outgrow it, and every lookup then reads from disk (measured by the bench).
   */
  public static final String LOCAL_MANAGED_MEMORY = "job.local-managed-memory";

  static JobConfig read(ConfigReader r) {
    int parallelism = r.integer(PARALLELISM, 0, 0, 32_768);
    int maxParallelism = r.integer(MAX_PARALLELISM, 128, 1, 32_768);
    r.check(
        parallelism <= maxParallelism,
        PARALLELISM,
        "must not exceed " + MAX_PARALLELISM + " (" + maxParallelism + ")");
    long localManaged = r.bytes(LOCAL_MANAGED_MEMORY, 512L * 1024 * 1024);
    r.check(localManaged >= 16L * 1024 * 1024, LOCAL_MANAGED_MEMORY, "must be at least 16 MiB");
    return new JobConfig(
        r.string(NAME, "tally"),
        parallelism,
        maxParallelism,
        r.bool(OBJECT_REUSE, true),
        localManaged);
  }

  /** Sizes the embedded cluster of a {@code --local} run; not for a job submitted to a cluster. */
  public void applyLocalTo(Configuration flink) {
    flink.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, new MemorySize(localManagedMemoryBytes));
  }

  /**
   * Writes these settings as Flink options, with the rules every Tally job keeps: no Kryo
   * fall-back, and no operator without an explicit uid (savepoints must survive upgrades).
   */
  public void applyTo(Configuration flink) {
    flink.set(PipelineOptions.NAME, name);
    if (parallelism > 0) {
      flink.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    }
    flink.set(PipelineOptions.MAX_PARALLELISM, maxParallelism);
    flink.set(PipelineOptions.OBJECT_REUSE, objectReuse);
    flink.set(PipelineOptions.GENERIC_TYPES, false);
    flink.set(PipelineOptions.AUTO_GENERATE_UIDS, false);
  }
}
