package dev.tally.runtime.config;

import dev.tally.domain.window.TumblingWindows;
import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigReader;
import dev.tally.runtime.topology.AggregationSettings;
import java.time.Duration;

/**
 * The aggregation's keys (docs/behaviour.md "Aggregation"). Their value is {@link
 * AggregationSettings}, which the topology owns and which checks the rules between them; the
 * defaults are its {@link AggregationSettings#defaults()}.
 */
public final class AggregationKeys {

  private static final AggregationSettings DEFAULTS = AggregationSettings.defaults();

  /** The tumbling window size. */
  public static final ConfigKey<Duration> WINDOW_SIZE =
      ConfigKey.duration("aggregation.window-size")
          .defaultValue(DEFAULTS.windows().size())
          .description("Tumbling window size, aligned to the UTC epoch.");

  /** The windows' alignment. */
  public static final ConfigKey<Duration> WINDOW_OFFSET =
      ConfigKey.duration("aggregation.window-offset")
          .defaultValue(DEFAULTS.windows().offset())
          .description("Shifts window alignment; less than the window size.");

  /** The allowed lateness. */
  public static final ConfigKey<Duration> ALLOWED_LATENESS =
      ConfigKey.duration("aggregation.allowed-lateness")
          .defaultValue(DEFAULTS.allowedLateness())
          .description("How long after a window is final late events still update its row.");

  /** How long counted transaction ids are remembered. */
  public static final ConfigKey<Duration> DEDUPE_RETENTION =
      ConfigKey.duration("aggregation.dedupe-retention")
          .defaultValue(DEFAULTS.dedupeRetention())
          .description(
              "How long, in event time, counted transaction ids are remembered for dedupe, at"
                  + " least: an id is forgotten on the first hour boundary after its window's end"
                  + " plus this retention. At least window size plus allowed lateness.");

  /** Whether the dedupe memory keeps full ids instead of 64-bit fingerprints. */
  public static final ConfigKey<Boolean> DEDUPE_FULL_IDS =
      ConfigKey.bool("aggregation.dedupe-full-ids")
          .defaultValue(DEFAULTS.dedupeFullIds())
          .description(
              "Keep every counted transaction id in full in the dedupe memory, not only its 64-bit"
                  + " fingerprint: then two different ids never match, at about 40 more bytes of"
                  + " state and heap an id. With fingerprints a new id is taken for an id of the same"
                  + " user with an equal fingerprint, at odds of at most n / 2^64 for a user with n"
                  + " remembered ids (docs/behaviour.md \"Dedupe memory\"). Applies to ids counted"
                  + " from the start it is set on; a restore may change it.");

  /** Early firing. */
  public static final ConfigKey<Duration> EARLY_FIRING_INTERVAL =
      ConfigKey.duration("aggregation.early-firing-interval")
          .defaultValue(DEFAULTS.earlyFiringInterval())
          .description(
              "Emit running rows of open windows every this much processing time; 0 is off.");

  /** How many users' open windows, dedupe memories and baselines a subtask keeps on the heap. */
  public static final ConfigKey<Integer> WRITE_BACK_USERS =
      ConfigKey.integer("aggregation.write-back-users")
          .defaultValue(DEFAULTS.writeBackUsers())
          .between(0, Integer.MAX_VALUE)
          .description(
              "How many users' open windows, and as many users' dedupe memories and anomaly"
                  + " baselines, an aggregator subtask keeps on the heap: changed ones until the next checkpoint, instead of"
                  + " writing every change to RocksDB at once, and on RocksDB also the ones written"
                  + " or read, the least recently used making room first. A busy user then costs one"
                  + " RocksDB write of each per checkpoint interval and no read after its first, not"
                  + " a read and a write per event. With anomalies on, between checkpoints the users"
                  + " changed longest ago are written ahead, paced over the interval, so that a checkpoint barrier"
                  + " writes at most 250 users' values of each, a bound reached a tenth of the"
                  + " interval before the barrier is due, so that an early barrier finds no more"
                  + " (the task thread processes nothing while it writes). Reaching the bound with"
                  + " changed ones writes them all early. Results never depend on it (changes are written before every"
                  + " checkpoint, savepoint and end of input); heap use does: 200 to 300 bytes a user"
                  + " for the windows (20 to 30 MB per subtask at the default), plus 40 to 60 bytes"
                  + " per remembered id of a dedupe memory held, plus with anomalies on a few"
                  + " hundred bytes to a few KB per user's baselines held. 0 writes at once and"
                  + " keeps nothing.");

  private AggregationKeys() {}

  /** Reads the keys; {@code null} when they have problems, which {@code r} records. */
  static AggregationSettings read(ConfigReader r) {
    Duration size = r.getChecked(WINDOW_SIZE);
    Duration offset = r.getChecked(WINDOW_OFFSET);
    Duration lateness = r.getChecked(ALLOWED_LATENESS);
    Duration retention = r.getChecked(DEDUPE_RETENTION);
    Duration early = r.getChecked(EARLY_FIRING_INTERVAL);
    int writeBack = r.getChecked(WRITE_BACK_USERS);
    boolean fullIds = r.getChecked(DEDUPE_FULL_IDS);
    return r.build(
        "aggregation.*",
        () ->
            new AggregationSettings(
                new TumblingWindows(size, offset),
                lateness,
                retention,
                early,
                // Already reported under its own key when negative; not twice.
                Math.max(0, writeBack),
                fullIds));
  }
}
