package dev.tally.runtime.config;

import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigReader;
import dev.tally.ports.config.InvalidConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;

/**
 * The restart strategy and its keys: exponential delay, so a flapping dependency is retried ever
 * more gently instead of hammered.
 *
 * @param initialBackoff see {@link #INITIAL_BACKOFF}
 * @param maxBackoff see {@link #MAX_BACKOFF}
 * @param multiplier see {@link #MULTIPLIER}
 * @param resetThreshold see {@link #RESET_THRESHOLD}
 * @param jitter see {@link #JITTER}: random spread of each delay
 * @param attempts see {@link #ATTEMPTS} (per reset period)
 */
public record RestartConfig(
    Duration initialBackoff,
    Duration maxBackoff,
    double multiplier,
    Duration resetThreshold,
    double jitter,
    int attempts) {

  /**
   * The first restart delay. Short, because a lost TaskManager or a failed task is usually gone for
   * good and every millisecond of delay is downtime (docs/deployment.md, "Recovery from a lost
   * TaskManager"); a failure that repeats still backs off exponentially.
   */
  public static final ConfigKey<Duration> INITIAL_BACKOFF =
      ConfigKey.duration("restart.initial-backoff")
          .defaultValue(Duration.ofMillis(100))
          .required()
          .description(
              "First restart delay; short, as each restart waits it before any task runs again.");

  /** The largest restart delay. */
  public static final ConfigKey<Duration> MAX_BACKOFF =
      ConfigKey.duration("restart.max-backoff")
          .defaultValue(Duration.ofMinutes(1))
          .required()
          .description("Largest restart delay.");

  /** Delay growth per failure. */
  public static final ConfigKey<Double> MULTIPLIER =
      ConfigKey.decimal("restart.backoff-multiplier")
          .defaultValue(2.0)
          .between(1.0, 100.0)
          .description("Delay growth per failure.");

  /** A run this long without failure resets the delay. */
  public static final ConfigKey<Duration> RESET_THRESHOLD =
      ConfigKey.duration("restart.reset-backoff-threshold")
          .defaultValue(Duration.ofHours(1))
          .required()
          .description("A run this long without failure resets the delay.");

  /** Jitter as a fraction of the delay. */
  public static final ConfigKey<Double> JITTER =
      ConfigKey.decimal("restart.jitter")
          .defaultValue(0.1)
          .between(0.0, 1.0)
          .description("Jitter as a fraction of the delay.");

  /** Attempts before the job fails for good; the default keeps trying. */
  public static final ConfigKey<Integer> ATTEMPTS =
      ConfigKey.integer("restart.attempts")
          .defaultValue(Integer.MAX_VALUE)
          .between(1, Integer.MAX_VALUE)
          .description("Attempts before the job fails for good (the default keeps trying).");

  public RestartConfig {
    List<String> problems = new ArrayList<>();
    INITIAL_BACKOFF.check(initialBackoff, problems);
    MAX_BACKOFF.check(maxBackoff, problems);
    if (initialBackoff != null && maxBackoff != null && initialBackoff.compareTo(maxBackoff) > 0) {
      problems.add(
          MAX_BACKOFF
              + ": must not be shorter than "
              + INITIAL_BACKOFF
              + " ("
              + INITIAL_BACKOFF.type().format(initialBackoff)
              + ")");
    }
    MULTIPLIER.check(multiplier, problems);
    RESET_THRESHOLD.check(resetThreshold, problems);
    JITTER.check(jitter, problems);
    ATTEMPTS.check(attempts, problems);
    InvalidConfigException.throwIfAny("restart config", problems);
  }

  /** Reads the strategy; {@code null} when it has problems, which {@code r} records. */
  static RestartConfig read(ConfigReader r) {
    Duration initial = r.get(INITIAL_BACKOFF);
    Duration max = r.get(MAX_BACKOFF);
    double multiplier = r.get(MULTIPLIER);
    Duration reset = r.get(RESET_THRESHOLD);
    double jitter = r.get(JITTER);
    int attempts = r.get(ATTEMPTS);
    return r.build(
        "restart.*", () -> new RestartConfig(initial, max, multiplier, reset, jitter, attempts));
  }

  /**
   * The longest delay the strategy waits before a restart: the largest delay with the most jitter
   * added (Flink's exponential-delay strategy jitters around the capped delay).
   */
  public static Duration worstBackoff(Duration maxBackoff, double jitter) {
    return maxBackoff.plusMillis(Math.round(Math.ceil(maxBackoff.toMillis() * jitter)));
  }

  /** Writes this strategy as Flink options. */
  public void applyTo(Configuration flink) {
    flink.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
    flink.set(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF, initialBackoff);
    flink.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF, maxBackoff);
    flink.set(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER, multiplier);
    flink.set(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD,
        resetThreshold);
    flink.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR, jitter);
    flink.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS, attempts);
  }
}
