package dev.tally.runtime.topology;

import dev.tally.domain.window.TumblingWindows;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How spending is aggregated (SPEC "Aggregation" and "Rejections"), validated as a whole.
 *
 * @param windows the tumbling windows, SPEC default one hour aligned to the epoch
 * @param allowedLateness how long after a window is final late events still update its row (an
 *     upsert)
 * @param dedupeRetention how long, in event time, a counted transaction id is remembered to drop
 *     exact duplicates and reject conflicting ones; at least window size plus allowed lateness, or
 *     a duplicate could be counted twice
 * @param earlyFiringInterval emit running rows of open windows every this much processing time;
 *     zero is off
 */
public record AggregationSettings(
    TumblingWindows windows,
    Duration allowedLateness,
    Duration dedupeRetention,
    Duration earlyFiringInterval)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  public AggregationSettings {
    Objects.requireNonNull(windows, "windows");
    Objects.requireNonNull(allowedLateness, "allowedLateness");
    Objects.requireNonNull(dedupeRetention, "dedupeRetention");
    Objects.requireNonNull(earlyFiringInterval, "earlyFiringInterval");
    List<String> problems = new ArrayList<>();
    if (allowedLateness.isNegative()) {
      problems.add("allowed lateness must not be negative: " + allowedLateness);
    }
    if (earlyFiringInterval.isNegative()) {
      problems.add("early firing interval must not be negative: " + earlyFiringInterval);
    }
    Duration minimumRetention =
        windows.size().plus(allowedLateness.isNegative() ? Duration.ZERO : allowedLateness);
    if (dedupeRetention.compareTo(minimumRetention) < 0) {
      problems.add(
          "dedupe retention "
              + dedupeRetention
              + " is shorter than window size plus allowed lateness ("
              + minimumRetention
              + "): a duplicate arriving while its window is still open would be counted twice");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
  }

  /** SPEC defaults: one-hour windows, no lateness, 24 h dedupe retention, no early firing. */
  public static AggregationSettings defaults() {
    return new AggregationSettings(
        TumblingWindows.of(Duration.ofHours(1)),
        Duration.ZERO,
        Duration.ofHours(24),
        Duration.ZERO);
  }

  /** Whether early firing is on. */
  public boolean earlyFiring() {
    return !earlyFiringInterval.isZero();
  }
}
