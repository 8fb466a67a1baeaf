package dev.tally.runtime.config;

import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigReader;
import dev.tally.ports.config.InvalidConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.core.execution.CheckpointingMode;

/**
 * The checkpoint policy and its keys. Every completed checkpoint commits the Iceberg snapshot and
 * the dead-letter transaction, so the interval is also the pipeline's commit latency.
 *
 * @param interval see {@link #INTERVAL}: time between checkpoint starts
 * @param timeout see {@link #TIMEOUT}: a checkpoint not complete after this fails
 * @param minPause see {@link #MIN_PAUSE}: between the end of one checkpoint and the next start
 * @param maxConcurrent see {@link #MAX_CONCURRENT}
 * @param unaligned see {@link #UNALIGNED}: barriers overtake in-flight data, so backpressure does
 *     not stall them
 * @param alignedTimeout see {@link #ALIGNED_TIMEOUT}
 * @param tolerableFailures see {@link #TOLERABLE_FAILURES}: before the job fails over
 * @param retention see {@link #RETENTION}
 */
public record CheckpointConfig(
    Duration interval,
    Duration timeout,
    Duration minPause,
    int maxConcurrent,
    boolean unaligned,
    Duration alignedTimeout,
    int tolerableFailures,
    ExternalizedCheckpointRetention retention) {

  /** The checkpoint (and commit) interval. */
  public static final ConfigKey<Duration> INTERVAL =
      ConfigKey.duration("checkpoints.interval")
          .defaultValue(Duration.ofSeconds(10))
          .required()
          .check(
              interval -> interval.toMillis() >= 10,
              interval -> "must be at least 10ms: Flink's minimum")
          .description("Checkpoint (and commit) interval.");

  /** The checkpoint timeout. */
  public static final ConfigKey<Duration> TIMEOUT =
      ConfigKey.duration("checkpoints.timeout")
          .defaultValue(Duration.ofMinutes(2))
          .required()
          .check(timeout -> timeout.toMillis() >= 10, timeout -> "must be at least 10ms")
          .description("Checkpoint timeout.");

  /** The minimum pause between checkpoints. */
  public static final ConfigKey<Duration> MIN_PAUSE =
      ConfigKey.duration("checkpoints.min-pause")
          .defaultValue(Duration.ZERO)
          .required()
          .description("Minimum pause between checkpoints.");

  /** Checkpoints in flight at once. */
  public static final ConfigKey<Integer> MAX_CONCURRENT =
      ConfigKey.integer("checkpoints.max-concurrent")
          .defaultValue(1)
          .between(1, 16)
          .description("Maximum concurrent checkpoints.");

  /** Unaligned checkpoints. */
  public static final ConfigKey<Boolean> UNALIGNED =
      ConfigKey.bool("checkpoints.unaligned")
          .defaultValue(true)
          .description("Unaligned checkpoints.");

  /** The aligned phase before switching to unaligned. */
  public static final ConfigKey<Duration> ALIGNED_TIMEOUT =
      ConfigKey.duration("checkpoints.aligned-timeout")
          .defaultValue(Duration.ofSeconds(5))
          .required()
          .description(
              "Aligned phase before switching to unaligned; 0 is unaligned from the start.");

  /** Tolerated consecutive checkpoint failures. */
  public static final ConfigKey<Integer> TOLERABLE_FAILURES =
      ConfigKey.integer("checkpoints.tolerable-failures")
          .defaultValue(3)
          .between(0, 1_000)
          .description("Tolerated consecutive checkpoint failures.");

  /** What happens to the latest checkpoint when the job is cancelled. */
  public static final ConfigKey<ExternalizedCheckpointRetention> RETENTION =
      ConfigKey.enumeration("checkpoints.retention", ExternalizedCheckpointRetention.class)
          .defaultValue(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION)
          .required()
          .check(
              retention -> retention != ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS,
              retention ->
                  "no-externalized-checkpoints would leave nothing to resume a cancelled job from")
          .description(
              "On cancel: retain-on-cancellation (resume later with `-s`),"
                  + " delete-on-cancellation.");

  public CheckpointConfig {
    List<String> problems = new ArrayList<>();
    INTERVAL.check(interval, problems);
    TIMEOUT.check(timeout, problems);
    MIN_PAUSE.check(minPause, problems);
    MAX_CONCURRENT.check(maxConcurrent, problems);
    ALIGNED_TIMEOUT.check(alignedTimeout, problems);
    TOLERABLE_FAILURES.check(tolerableFailures, problems);
    RETENTION.check(retention, problems);
    InvalidConfigException.throwIfAny("checkpoint config", problems);
  }

  /** Reads the policy; {@code null} when it has problems, which {@code r} records. */
  static CheckpointConfig read(ConfigReader r) {
    Duration interval = r.get(INTERVAL);
    Duration timeout = r.get(TIMEOUT);
    Duration minPause = r.get(MIN_PAUSE);
    int maxConcurrent = r.get(MAX_CONCURRENT);
    boolean unaligned = r.get(UNALIGNED);
    Duration alignedTimeout = r.get(ALIGNED_TIMEOUT);
    int tolerableFailures = r.get(TOLERABLE_FAILURES);
    ExternalizedCheckpointRetention retention = r.get(RETENTION);
    return r.build(
        "checkpoints.*",
        () ->
            new CheckpointConfig(
                interval,
                timeout,
                minPause,
                maxConcurrent,
                unaligned,
                alignedTimeout,
                tolerableFailures,
                retention));
  }

  /** Writes this policy as Flink options; always exactly-once. */
  public void applyTo(Configuration flink) {
    flink.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    flink.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
    flink.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, timeout);
    flink.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, minPause);
    flink.set(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS, maxConcurrent);
    flink.set(CheckpointingOptions.ENABLE_UNALIGNED, unaligned);
    flink.set(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT, alignedTimeout);
    flink.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, tolerableFailures);
    flink.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, retention);
  }
}
