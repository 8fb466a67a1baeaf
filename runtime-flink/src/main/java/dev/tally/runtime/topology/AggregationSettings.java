package dev.tally.runtime.topology;

import dev.tally.domain.spending.StateSettings;
import dev.tally.domain.window.TumblingWindows;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How spending is aggregated (docs/behaviour.md "Aggregation" and "Rejections"), validated as a
 * whole.
 *
 * @param windows the tumbling windows, default one hour aligned to the epoch
 * @param allowedLateness how long after a window is final late events still update its row (an
 *     upsert)
 * @param dedupeRetention how long, in event time, a counted transaction id is remembered to drop
 *     exact duplicates and reject conflicting ones; at least window size plus allowed lateness, or
 *     a duplicate could be counted twice
 * @param earlyFiringInterval emit running rows of open windows every this much processing time;
 *     zero is off
 * @param writeBackUsers how many users' changed open windows an aggregator subtask may keep on the
 *     heap until the next checkpoint instead of writing each change to RocksDB at once; zero writes
 *     at once. Only speed and heap use depend on it, never a result.
 * @param dedupeFullIds whether the dedupe memory keeps each counted id in full, not only its 64-bit
 *     fingerprint: exact even for ids whose fingerprints collide, at the cost of an object per id
 *     (docs/behaviour.md "Dedupe memory")
 */
public record AggregationSettings(
    TumblingWindows windows,
    Duration allowedLateness,
    Duration dedupeRetention,
    Duration earlyFiringInterval,
    int writeBackUsers,
    boolean dedupeFullIds)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Default of {@link #writeBackUsers}: 20 to 30 MB of heap per subtask (200 to 300 B a user). */
  public static final int DEFAULT_WRITE_BACK_USERS = 100_000;

  /** Settings with the default {@link #writeBackUsers}. */
  public AggregationSettings(
      TumblingWindows windows,
      Duration allowedLateness,
      Duration dedupeRetention,
      Duration earlyFiringInterval) {
    this(windows, allowedLateness, dedupeRetention, earlyFiringInterval, DEFAULT_WRITE_BACK_USERS);
  }

  /** Settings that keep only fingerprints of ids. */
  public AggregationSettings(
      TumblingWindows windows,
      Duration allowedLateness,
      Duration dedupeRetention,
      Duration earlyFiringInterval,
      int writeBackUsers) {
    this(windows, allowedLateness, dedupeRetention, earlyFiringInterval, writeBackUsers, false);
  }

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
    if (writeBackUsers < 0) {
      problems.add("write-back users must not be negative: " + writeBackUsers);
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

  /**
   * Defaults: one-hour windows, no lateness, 24 h dedupe retention, no early firing; and the
   * default write-back.
   */
  public static AggregationSettings defaults() {
    return new AggregationSettings(
        TumblingWindows.of(Duration.ofHours(1)),
        Duration.ZERO,
        Duration.ofHours(24),
        Duration.ZERO);
  }

  /**
   * The settings the aggregation's state is built with, which a restore must match
   * (docs/behaviour.md "Upgrades and restores"); early firing and write-back change no state, and
   * full ids apply to ids counted from then on (both forms of entry are read).
   */
  public StateSettings stateSettings() {
    return StateSettings.of(windows, allowedLateness, dedupeRetention);
  }

  /** Whether early firing is on. */
  public boolean earlyFiring() {
    return !earlyFiringInterval.isZero();
  }
}
