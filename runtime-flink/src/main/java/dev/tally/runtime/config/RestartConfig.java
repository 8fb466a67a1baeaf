package dev.tally.runtime.config;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;

/**
 * Restart strategy keys: exponential delay, so a flapping dependency is retried ever more gently
 * instead of hammered.
 *
 * @param initialBackoff first delay
 * @param maxBackoff largest delay
 * @param multiplier growth per failure
 * @param resetThreshold a run this long without failure resets the backoff
 * @param jitter random spread of each delay, as a fraction
 * @param attempts failures before the job gives up (per reset period)
 */
public record RestartConfig(
    Duration initialBackoff,
    Duration maxBackoff,
    double multiplier,
    Duration resetThreshold,
    double jitter,
    int attempts) {

  /** First restart delay. Default 1s. */
  public static final String INITIAL_BACKOFF = "restart.initial-backoff";

  /** Largest restart delay. Default 1m. */
  public static final String MAX_BACKOFF = "restart.max-backoff";

  /** Delay growth per failure. Default 2.0. */
  public static final String MULTIPLIER = "restart.backoff-multiplier";

  /** A run this long without failure resets the delay. Default 1h. */
  public static final String RESET_THRESHOLD = "restart.reset-backoff-threshold";

  /** Jitter as a fraction of the delay. Default 0.1. */
  public static final String JITTER = "restart.jitter";

  /** Attempts before the job fails for good. Default 2147483647 (keep trying). */
  public static final String ATTEMPTS = "restart.attempts";

  static RestartConfig read(ConfigReader r) {
    Duration initial = r.duration(INITIAL_BACKOFF, Duration.ofSeconds(1));
    Duration max = r.duration(MAX_BACKOFF, Duration.ofMinutes(1));
    r.check(
        initial == null || max == null || initial.compareTo(max) <= 0,
        MAX_BACKOFF,
        "must not be shorter than " + INITIAL_BACKOFF + " (" + initial + ")");
    return new RestartConfig(
        initial,
        max,
        r.fraction(MULTIPLIER, 2.0, 1.0, 100.0),
        r.duration(RESET_THRESHOLD, Duration.ofHours(1)),
        r.fraction(JITTER, 0.1, 0.0, 1.0),
        r.integer(ATTEMPTS, Integer.MAX_VALUE, 1, Integer.MAX_VALUE));
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
