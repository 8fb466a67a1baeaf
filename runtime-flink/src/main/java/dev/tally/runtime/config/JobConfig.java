package dev.tally.runtime.config;

import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigReader;
import dev.tally.ports.config.InvalidConfigException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.TaskManagerOptions;

/**
 * The job's settings and their keys.
 *
 * @param name see {@link #NAME}: shown in the Flink UI, and what tells this job from others
 * @param parallelism see {@link #PARALLELISM}
 * @param maxParallelism see {@link #MAX_PARALLELISM}: the most the job can ever be rescaled to
 * @param objectReuse see {@link #OBJECT_REUSE}: chained operators pass records without copying
 *     (Tally's functions keep no references)
 * @param localManagedMemoryBytes see {@link #LOCAL_MANAGED_MEMORY}
 */
public record JobConfig(
    String name,
    int parallelism,
    int maxParallelism,
    boolean objectReuse,
    long localManagedMemoryBytes) {

  /**
   * The job's name, and its identity among the jobs of one cluster: the consumer group, the
   * dead-letter transactional-id prefix and the output table's writer derive from it.
   */
  public static final ConfigKey<String> NAME =
      ConfigKey.string("job.name")
          .defaultValue("tally")
          .required()
          .description(
              "Job name, and the job's identity on the cluster: the consumer group and the"
                  + " dead-letter transactional-id prefix derive from it unless set, and it is"
                  + " recorded as the output table's writer. Give every job its own.");

  /** The default parallelism. */
  public static final ConfigKey<Integer> PARALLELISM =
      ConfigKey.integer("job.parallelism")
          .defaultValue(0)
          .between(0, 32_768)
          .description("Default parallelism; 0 keeps the cluster's.");

  /** The maximum parallelism, fixed for the life of the job's state. */
  public static final ConfigKey<Integer> MAX_PARALLELISM =
      ConfigKey.integer("job.max-parallelism")
          .defaultValue(128)
          .between(1, 32_768)
          .description("Maximum parallelism (key groups); never change it for a job with state.");

  /** Object reuse between chained operators. */
  public static final ConfigKey<Boolean> OBJECT_REUSE =
      ConfigKey.bool("job.object-reuse")
          .defaultValue(true)
          .description("Object reuse between chained operators.");

  /**
   * Managed memory of the embedded cluster in a {@code --local} run. Its default is well above
   * Flink's own local default, which starves RocksDB once the dedupe ids outgrow it, so that every
   * lookup then reads from disk (measured by the bench).
   */
  public static final ConfigKey<Long> LOCAL_MANAGED_MEMORY =
      ConfigKey.bytes("job.local-managed-memory")
          .defaultValue(512L * 1024 * 1024)
          .atLeast(16L * 1024 * 1024)
          .description(
              "Managed memory of the embedded cluster in a `--local` run (RocksDB's block cache"
                  + " and write buffers); ignored on a real cluster.");

  public JobConfig {
    List<String> problems = new ArrayList<>();
    NAME.check(name, problems);
    PARALLELISM.check(parallelism, problems);
    MAX_PARALLELISM.check(maxParallelism, problems);
    if (parallelism > maxParallelism) {
      problems.add(
          PARALLELISM + ": must not exceed " + MAX_PARALLELISM + " (" + maxParallelism + ")");
    }
    LOCAL_MANAGED_MEMORY.check(localManagedMemoryBytes, problems);
    InvalidConfigException.throwIfAny("job config", problems);
  }

  /** Reads the job's keys; {@code null} when they have problems, which {@code r} records. */
  static JobConfig read(ConfigReader r) {
    String name = r.get(NAME);
    int parallelism = r.get(PARALLELISM);
    int maxParallelism = r.get(MAX_PARALLELISM);
    boolean objectReuse = r.get(OBJECT_REUSE);
    long localManaged = r.get(LOCAL_MANAGED_MEMORY);
    return r.build(
        "job.*", () -> new JobConfig(name, parallelism, maxParallelism, objectReuse, localManaged));
  }

  /**
   * Sizes the embedded cluster of a {@code --local} run; not for a job submitted to a cluster. Its
   * TaskManager debloats network buffers, as a real cluster's configuration does (deploy/,
   * docs/deployment.md "Checkpoints under backpressure"): under backpressure the buffers of an
   * exchange shrink to about a second of what its consumer takes in, which shortens the wait of a
   * window end's timer for a buffer, the wait an unaligned barrier cannot skip (measured:
   * docs/benchmarks.md, "Backpressure").
   */
  public void applyLocalTo(Configuration flink) {
    flink.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, new MemorySize(localManagedMemoryBytes));
    flink.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);
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
