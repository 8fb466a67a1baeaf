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
 * @param interruptibleTimers see {@link #INTERRUPTIBLE_TIMERS}: a barrier need not wait for every
 *     row a window end emits
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
    boolean interruptibleTimers,
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

  /**
   * The aligned phase before a checkpoint switches to unaligned. Zero, the default, makes every
   * checkpoint unaligned from its first barrier: under backpressure an aligned phase only adds its
   * own length to the checkpoint (docs/benchmarks.md, "Backpressure"), and without backpressure an
   * unaligned checkpoint persists only the few buffers in flight, so it costs about what an aligned
   * one does. Savepoints are always aligned, whatever this says.
   */
  public static final ConfigKey<Duration> ALIGNED_TIMEOUT =
      ConfigKey.duration("checkpoints.aligned-timeout")
          .defaultValue(Duration.ZERO)
          .required()
          .description(
              "Aligned phase before switching to unaligned; 0 is unaligned from the start.");

  /**
   * Whether an unaligned checkpoint may start between two timers of one watermark. A window end
   * fires one timer per user with a window in it, all under one watermark; when the writers are
   * slow, emitting those rows blocks the aggregator's task until they are all out, and no barrier,
   * aligned or not, passes that task before. Interruptible, the task takes the checkpoint between
   * two timers. Results never depend on it: the watermark, hence every lateness verdict, is the
   * same before and after, and the timers not yet fired are in the checkpoint. That holds for
   * Tally's aggregator; the SQL runner turns the option off for SQL jobs ({@code
   * SqlRunner.TABLE_DEFAULTS}), whose operators on Flink 2.1 lose the final watermark's timers at
   * the end of a bounded input with it (FLINK-39481).
   */
  public static final ConfigKey<Boolean> INTERRUPTIBLE_TIMERS =
      ConfigKey.bool("checkpoints.interruptible-timers")
          .defaultValue(true)
          .description(
              "With unaligned checkpoints, take a checkpoint between the timers a window end fires"
                  + " instead of after the last; without it, slow writers hold every barrier until"
                  + " the window's rows are out.");

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
    boolean interruptibleTimers = r.get(INTERRUPTIBLE_TIMERS);
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
                interruptibleTimers,
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
    flink.set(CheckpointingOptions.ENABLE_UNALIGNED_INTERRUPTIBLE_TIMERS, interruptibleTimers);
    flink.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, tolerableFailures);
    flink.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, retention);
  }
}
