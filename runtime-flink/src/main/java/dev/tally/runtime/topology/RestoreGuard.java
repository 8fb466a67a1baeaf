package dev.tally.runtime.topology;

import dev.tally.domain.spending.StateSetting;
import dev.tally.domain.spending.StateSettings;
import dev.tally.domain.spending.StateSettings.RestoreVerdict;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.ports.config.ValueType;
import dev.tally.ports.types.SerializerTypeInfo;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.FunctionInitializationContext;

/**
 * Refuses, at start, a restore that cannot go on exactly (docs/behaviour.md "Upgrades and
 * restores"): the aggregator records the settings its state is built with ({@link StateSettings},
 * union operator state {@value #STATE}, every subtask one copy) and, on restore, the domain judges
 * them and the restored watermark floor against the configured settings. A refusal fails the job in
 * {@code initializeState}, before any record is processed, with a message naming every reason and
 * key, as a {@link SuppressRestartsException}: retrying cannot help, so the job ends {@code FAILED}
 * instead of restarting in a loop.
 *
 * <p>A bounded job restored from state taken after the end of its input (the final watermark made
 * every window final) is exact only if nothing is left to read, which only its input can tell: it
 * starts, and {@link #admit} refuses it, the same way, on the first record that reaches the
 * aggregator, before that record is counted.
 *
 * <p>State written before the settings were recorded (release {@code b3f3bdb}) holds no record: it
 * is taken as built with the configured settings, and the first checkpoint after the restore
 * records them.
 */
final class RestoreGuard {

  /** Name of the union operator state that holds the recorded settings. */
  static final String STATE = "aggregation-settings";

  private static final TypeInformation<StateSettings> TYPE =
      new SerializerTypeInfo<>(StateSettings.class, StateSettingsSerializer.INSTANCE);

  private final ListState<StateSettings> state;
  private final StateSettings configured;
  private final RestoreVerdict.ExactWithoutInput withoutInput;

  private RestoreGuard(
      ListState<StateSettings> state,
      StateSettings configured,
      RestoreVerdict.ExactWithoutInput withoutInput) {
    this.state = state;
    this.configured = configured;
    this.withoutInput = withoutInput;
  }

  /**
   * Judges the restored state, if any, and fails the job when it cannot go on exactly.
   *
   * @param restoredWatermark the restored watermark floor, {@code Long.MIN_VALUE} for none
   * @param boundedInput whether the job reads bounded input
   * @throws SuppressRestartsException naming every reason, for a restore that cannot be exact
   */
  static RestoreGuard check(
      FunctionInitializationContext context,
      StateSettings configured,
      long restoredWatermark,
      boolean boundedInput)
      throws Exception {
    OperatorStateStore store = context.getOperatorStateStore();
    ListState<StateSettings> state =
        store.getUnionListState(new ListStateDescriptor<>(STATE, TYPE));
    RestoreVerdict verdict = RestoreVerdict.EXACT;
    if (context.isRestored()) {
      List<StateSettings> recorded = new ArrayList<>();
      state.get().forEach(recorded::add);
      verdict = configured.restoring(recorded, restoredWatermark, boundedInput);
      if (verdict instanceof RestoreVerdict.Refused refused) {
        throw refusal(refused);
      }
    }
    return new RestoreGuard(
        state,
        configured,
        verdict instanceof RestoreVerdict.ExactWithoutInput without ? without : null);
  }

  /**
   * Lets a record through, unless the restore is exact only without input.
   *
   * @throws SuppressRestartsException naming why, before the record is counted
   */
  void admit(SourcedTransaction record) {
    if (withoutInput != null) {
      SourceRecord source = record.source();
      throw refusal(
          withoutInput.onRecord(),
          "\n  the first record it read after it: "
              + source.topic()
              + " partition "
              + source.partition()
              + " offset "
              + source.offset()
              + ")");
    }
  }

  private static SuppressRestartsException refusal(RestoreVerdict.Refused refused) {
    return refusal(refused, "");
  }

  private static SuppressRestartsException refusal(RestoreVerdict.Refused refused, String detail) {
    return new SuppressRestartsException(new IllegalStateException(message(refused) + detail));
  }

  /** Records the configured settings in the checkpoint being taken. */
  void snapshot() throws Exception {
    state.update(List.of(configured));
  }

  /** The refusal as the operator reads it: every reason on its own line, each with its remedy. */
  static String message(RestoreVerdict.Refused refused) {
    StringBuilder text =
        new StringBuilder(
            "The restored state of "
                + SpendingTopology.AGGREGATOR_UID
                + " cannot go on exactly, so the job does not start:");
    for (RestoreVerdict.Problem problem : refused.problems()) {
      text.append("\n  ");
      if (problem instanceof RestoreVerdict.SettingChanged changed) {
        text.append(keyOf(changed.setting()))
            .append(": the restored state was built with ")
            .append(readable(changed.recorded()))
            .append(", the configuration says ")
            .append(readable(changed.configured()))
            .append("; restore with the same value or start without state");
      } else if (problem instanceof RestoreVerdict.InputAfterEnd) {
        text.append(
            "the restored state was taken after the end of input (a savepoint of flink stop"
                + " --drain, or a checkpoint after a bounded run's final watermark), and this"
                + " bounded run read records after it: every window they belong to was emitted as"
                + " final, so they cannot be counted exactly. Nothing was counted. Run the bounded"
                + " job without state (its offsets start it where it should) or resume from a"
                + " savepoint taken without --drain");
      } else {
        text.append(
            "the restored state was taken after the end of input (a savepoint of flink stop"
                + " --drain, or a checkpoint after the final watermark): that watermark emitted"
                + " every window as final, so the job it belongs to has ended for good and every"
                + " record would be rejected as LATE. Resume from a savepoint taken without"
                + " --drain (flink stop --savepointPath ...), or start without state");
      }
    }
    return text.toString();
  }

  /** The configuration key of a setting (docs/configuration.md). */
  static String keyOf(StateSetting setting) {
    return switch (setting) {
      case WINDOW_SIZE -> "aggregation.window-size";
      case WINDOW_OFFSET -> "aggregation.window-offset";
      case ALLOWED_LATENESS -> "aggregation.allowed-lateness";
      case DEDUPE_RETENTION -> "aggregation.dedupe-retention";
      case ANOMALY_K -> "anomalies.k";
      case ANOMALY_MIN_BASELINE -> "anomalies.min-baseline";
    };
  }

  /** A recorded duration as configuration spells it ({@code 1h}), anything else as it is. */
  private static String readable(String value) {
    try {
      return ValueType.duration().format(Duration.parse(value));
    } catch (DateTimeParseException e) {
      return value;
    }
  }
}
