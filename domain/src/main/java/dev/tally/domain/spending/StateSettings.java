package dev.tally.domain.spending;

import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.domain.window.TumblingWindows;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The settings an aggregation state was built with, recorded in that state, and the rule that
 * decides whether restored state can go on exactly under the configured settings (docs/behaviour.md
 * "Upgrades and restores").
 *
 * @param values each setting's value in a canonical text form (a duration in ISO-8601, {@link
 *     Duration#toString()}); a record written before a setting existed lacks it
 */
public record StateSettings(Map<StateSetting, String> values) implements Serializable {

  private static final long serialVersionUID = 1L;

  public StateSettings {
    Objects.requireNonNull(values, "values");
    EnumMap<StateSetting, String> copy = new EnumMap<>(StateSetting.class);
    values.forEach(
        (setting, value) ->
            copy.put(Objects.requireNonNull(setting, "setting"), Objects.requireNonNull(value)));
    values = Collections.unmodifiableMap(copy);
  }

  /** The settings of an aggregation with these windows, lateness and dedupe retention. */
  public static StateSettings of(
      TumblingWindows windows, Duration allowedLateness, Duration dedupeRetention) {
    EnumMap<StateSetting, String> values = new EnumMap<>(StateSetting.class);
    values.put(StateSetting.WINDOW_SIZE, windows.size().toString());
    values.put(StateSetting.WINDOW_OFFSET, windows.offset().toString());
    values.put(StateSetting.ALLOWED_LATENESS, allowedLateness.toString());
    values.put(StateSetting.DEDUPE_RETENTION, dedupeRetention.toString());
    return new StateSettings(values);
  }

  /**
   * These settings and the anomaly rule the state's baselines are judged by: a restore under
   * another rule would judge the replayed transactions otherwise than the run that took the state.
   */
  public StateSettings withAnomalyRule(AnomalyRule rule) {
    EnumMap<StateSetting, String> with = new EnumMap<>(StateSetting.class);
    with.putAll(values);
    with.put(StateSetting.ANOMALY_K, rule.k().toPlainString());
    with.put(StateSetting.ANOMALY_MIN_BASELINE, Integer.toString(rule.minBaseline()));
    return new StateSettings(with);
  }

  /**
   * Whether state can be restored under these (the configured) settings, and if not, every reason.
   *
   * <p>State taken after the end of input ({@code restoredWatermark} {@code Long.MAX_VALUE}: a stop
   * with drain, or a bounded run after its final watermark) made every window final. A streaming
   * job restored from it would reject every record as {@code LATE}: refused. A bounded one ends
   * exactly if nothing is left to read (its sources restored as finished, or at their stopping
   * offsets already), and not otherwise, which only its input can tell: {@link
   * RestoreVerdict.ExactWithoutInput}.
   *
   * @param recorded the settings recorded in the restored state, one per subtask that wrote it;
   *     empty for state written before settings were recorded, which is taken as built with the
   *     configured ones (nothing says otherwise)
   * @param restoredWatermark the event time the restored state had passed, {@code Long.MIN_VALUE}
   *     for none; {@code Long.MAX_VALUE} is the end of input: the final watermark fired every
   *     window
   * @param boundedInput whether the restored job reads bounded input (it ends when read)
   */
  public RestoreVerdict restoring(
      Collection<StateSettings> recorded, long restoredWatermark, boolean boundedInput) {
    Set<RestoreVerdict.Problem> problems = new LinkedHashSet<>();
    boolean afterEnd = restoredWatermark == Long.MAX_VALUE;
    if (afterEnd && !boundedInput) {
      problems.add(new RestoreVerdict.InputEnded());
    }
    for (StateSettings before : recorded) {
      for (Map.Entry<StateSetting, String> now : values.entrySet()) {
        String then = before.values.get(now.getKey());
        // A setting the record lacks was not recorded by the code that wrote it: no evidence.
        if (then != null && !then.equals(now.getValue())) {
          problems.add(new RestoreVerdict.SettingChanged(now.getKey(), then, now.getValue()));
        }
      }
    }
    if (!problems.isEmpty()) {
      return new RestoreVerdict.Refused(new ArrayList<>(problems));
    }
    return afterEnd ? RestoreVerdict.EXACT_WITHOUT_INPUT : RestoreVerdict.EXACT;
  }

  /** The verdict on a restore: it goes on exactly, or it is refused with every reason. */
  public sealed interface RestoreVerdict
      permits RestoreVerdict.Exact, RestoreVerdict.ExactWithoutInput, RestoreVerdict.Refused {

    /** The one {@link Exact}. */
    Exact EXACT = new Exact();

    /** The one {@link ExactWithoutInput}. */
    ExactWithoutInput EXACT_WITHOUT_INPUT = new ExactWithoutInput();

    /** The restored state goes on exactly as an uninterrupted run under the configured settings. */
    record Exact() implements RestoreVerdict {}

    /**
     * A bounded run restored from state taken after the end of its input: it goes on exactly only
     * as long as it reads nothing, since every window is final. Its end (the final watermark again)
     * changes nothing; a record that arrives is refused ({@link #onRecord()}).
     */
    record ExactWithoutInput() implements RestoreVerdict {

      /** The verdict once a record arrives: refused, before the record is counted. */
      public Refused onRecord() {
        return new Refused(List.of(new InputAfterEnd()));
      }
    }

    /** The restored state cannot go on exactly; {@code problems} says why, at least one reason. */
    record Refused(List<Problem> problems) implements RestoreVerdict {
      public Refused {
        problems = List.copyOf(problems);
        if (problems.isEmpty()) {
          throw new IllegalArgumentException("a refusal has a reason");
        }
      }
    }

    /** One reason for a refusal. */
    sealed interface Problem permits SettingChanged, InputEnded, InputAfterEnd {}

    /**
     * The state was built with another value of {@code setting}.
     *
     * @param recorded the value the state was built with, canonical text
     * @param configured the configured value, canonical text
     */
    record SettingChanged(StateSetting setting, String recorded, String configured)
        implements Problem {
      public SettingChanged {
        Objects.requireNonNull(setting, "setting");
        Objects.requireNonNull(recorded, "recorded");
        Objects.requireNonNull(configured, "configured");
      }
    }

    /**
     * The state was taken after the end of input (a stop with drain, or the end of a bounded run):
     * the final watermark made every window final and emitted it, so every record after it would be
     * {@code LATE}, and windows it emitted as final cannot take more records.
     */
    record InputEnded() implements Problem {}

    /**
     * A bounded run restored from state taken after the end of its input read a record: there was
     * input left after all, and every window it could count in is final, so it cannot go on
     * exactly.
     */
    record InputAfterEnd() implements Problem {}
  }
}
