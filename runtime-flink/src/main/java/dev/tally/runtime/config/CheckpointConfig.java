package dev.tally.runtime.config;

import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.core.execution.CheckpointingMode;

/**
 * Checkpoint policy keys. Every completed checkpoint commits the Iceberg snapshot and the
 * dead-letter transaction, so the interval is also the pipeline's commit latency.
 *
 * @param interval time between checkpoint starts
 * @param timeout a checkpoint not complete after this fails
 * @param minPause least time between the end of one checkpoint and the start of the next
 * @param maxConcurrent checkpoints in flight at once
 * @param unaligned unaligned checkpoints: barriers overtake in-flight data, so backpressure does
 *     not stall them
 * @param alignedTimeout with unaligned on: start aligned, switch to unaligned after this (0: always
 *     unaligned)
 * @param tolerableFailures consecutive checkpoint failures tolerated before the job fails over
 * @param retention what happens to the latest checkpoint when the job is cancelled
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

  /** Checkpoint (and commit) interval. Default 10s. */
  public static final String INTERVAL = "checkpoints.interval";

  /** Checkpoint timeout. Default 2m. */
  public static final String TIMEOUT = "checkpoints.timeout";

  /** Minimum pause between checkpoints. Default 0s. */
  public static final String MIN_PAUSE = "checkpoints.min-pause";

  /** Maximum concurrent checkpoints. Default 1. */
  public static final String MAX_CONCURRENT = "checkpoints.max-concurrent";

  /** Unaligned checkpoints. Default true. */
  public static final String UNALIGNED = "checkpoints.unaligned";

  /** Aligned phase before switching to unaligned; 0 is unaligned from the start. Default 5s. */
  public static final String ALIGNED_TIMEOUT = "checkpoints.aligned-timeout";

  /** Tolerated consecutive checkpoint failures. Default 3. */
  public static final String TOLERABLE_FAILURES = "checkpoints.tolerable-failures";

  /**
   * On cancel: retain-on-cancellation (resume later with {@code -s}), delete-on-cancellation.
   * Default retain-on-cancellation.
   */
  public static final String RETENTION = "checkpoints.retention";

  static CheckpointConfig read(ConfigReader r) {
    Duration interval = r.duration(INTERVAL, Duration.ofSeconds(10));
    r.check(
        interval == null || interval.toMillis() >= 10,
        INTERVAL,
        "must be at least 10ms: Flink's minimum");
    Duration timeout = r.duration(TIMEOUT, Duration.ofMinutes(2));
    r.check(timeout == null || timeout.toMillis() >= 10, TIMEOUT, "must be at least 10ms");
    ExternalizedCheckpointRetention retention =
        r.enumValue(
            RETENTION,
            ExternalizedCheckpointRetention.class,
            ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    r.check(
        retention != ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS,
        RETENTION,
        "no-externalized-checkpoints would leave nothing to resume a cancelled job from");
    return new CheckpointConfig(
        interval,
        timeout,
        r.duration(MIN_PAUSE, Duration.ZERO),
        r.integer(MAX_CONCURRENT, 1, 1, 16),
        r.bool(UNALIGNED, true),
        r.duration(ALIGNED_TIMEOUT, Duration.ofSeconds(5)),
        r.integer(TOLERABLE_FAILURES, 3, 0, 1_000),
        retention);
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
