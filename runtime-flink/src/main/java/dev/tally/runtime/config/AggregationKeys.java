package dev.tally.runtime.config;

import dev.tally.domain.window.TumblingWindows;
import dev.tally.runtime.topology.AggregationSettings;
import java.time.Duration;

/** Aggregation keys (SPEC "Aggregation"). */
public final class AggregationConfig {

  /** Tumbling window size, aligned to the UTC epoch. Default 1h. */
  public static final String WINDOW_SIZE = "aggregation.window-size";

  /** Shifts window alignment; less than the window size. Default 0s. */
  public static final String WINDOW_OFFSET = "aggregation.window-offset";

  /** How long after a window is final late events still update its row. Default 0s. */
  public static final String ALLOWED_LATENESS = "aggregation.allowed-lateness";

  /**
   * How long, in event time, counted transaction ids are remembered for dedupe, at least: an id is
   * forgotten on the first hour boundary after its window's end plus this retention. At least
   * window size plus allowed lateness. Default 24h.
   */
  public static final String DEDUPE_RETENTION = "aggregation.dedupe-retention";

  /** Emit running rows of open windows every this much processing time; 0 is off. Default 0s. */
  public static final String EARLY_FIRING_INTERVAL = "aggregation.early-firing-interval";

  /**
   * How many users' changed open windows an aggregator subtask keeps on the heap until the next
   * checkpoint, instead of writing every change to RocksDB at once (a busy user then costs one
   * RocksDB read and write per checkpoint interval, not two per event). Reaching it writes them all
   * early. Results never depend on it; heap use does, 200 to 300 bytes a user. 0 writes at once.
   * Default 100000.
   */
  public static final String WRITE_BACK_USERS = "aggregation.write-back-users";

  private AggregationConfig() {}

  static AggregationSettings read(ConfigReader r) {
    Duration size = r.duration(WINDOW_SIZE, Duration.ofHours(1));
    Duration offset = r.duration(WINDOW_OFFSET, Duration.ZERO);
    Duration lateness = r.duration(ALLOWED_LATENESS, Duration.ZERO);
    Duration retention = r.duration(DEDUPE_RETENTION, Duration.ofHours(24));
    Duration early = r.duration(EARLY_FIRING_INTERVAL, Duration.ZERO);
    int writeBack =
        r.integer(
            WRITE_BACK_USERS, AggregationSettings.DEFAULT_WRITE_BACK_USERS, 0, Integer.MAX_VALUE);
    return r.build(
        "aggregation.*",
        () ->
            new AggregationSettings(
                new TumblingWindows(size, offset),
                lateness,
                retention,
                early,
                // Already reported under its own key when negative; not twice.
                Math.max(0, writeBack)));
  }
}
