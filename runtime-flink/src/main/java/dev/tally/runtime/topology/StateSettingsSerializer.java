package dev.tally.runtime.topology;

import dev.tally.domain.spending.StateSetting;
import dev.tally.domain.spending.StateSettings;
import java.io.IOException;
import java.util.EnumMap;
import java.util.Map;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * The recorded aggregation settings ({@link StateSettings}), written as a count and then pairs of
 * {@link StringValue} strings: each setting's stable id and its value. Open-ended by design: a
 * later release adds settings as further pairs without a new format, and a release that does not
 * know an id skips it when reading.
 */
public final class StateSettingsSerializer extends TypeSerializerSingleton<StateSettings> {

  private static final long serialVersionUID = 1L;

  /** The one instance: the serializer has no state. */
  public static final StateSettingsSerializer INSTANCE = new StateSettingsSerializer();

  private static final StateSettings EMPTY = new StateSettings(Map.of());

  private StateSettingsSerializer() {}

  @Override
  public boolean isImmutableType() {
    return true;
  }

  @Override
  public StateSettings createInstance() {
    return EMPTY;
  }

  @Override
  public StateSettings copy(StateSettings from) {
    return from;
  }

  @Override
  public StateSettings copy(StateSettings from, StateSettings reuse) {
    return from;
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(StateSettings record, DataOutputView out) throws IOException {
    out.writeInt(record.values().size());
    for (Map.Entry<StateSetting, String> entry : record.values().entrySet()) {
      StringValue.writeString(entry.getKey().id(), out);
      StringValue.writeString(entry.getValue(), out);
    }
  }

  @Override
  public StateSettings deserialize(DataInputView in) throws IOException {
    int count = in.readInt();
    Map<StateSetting, String> values = new EnumMap<>(StateSetting.class);
    for (int i = 0; i < count; i++) {
      StateSetting setting = StateSetting.byId(StringValue.readString(in));
      String value = StringValue.readString(in);
      if (setting != null) {
        values.put(setting, value);
      }
    }
    return new StateSettings(values);
  }

  @Override
  public StateSettings deserialize(StateSettings reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    int count = in.readInt();
    out.writeInt(count);
    for (int i = 0; i < 2 * count; i++) {
      StringValue.copyString(in, out);
    }
  }

  @Override
  public TypeSerializerSnapshot<StateSettings> snapshotConfiguration() {
    return new StateSettingsSerializerSnapshot();
  }

  /** Restores this serializer from savepoints; its format has one version. */
  public static final class StateSettingsSerializerSnapshot
      extends SimpleTypeSerializerSnapshot<StateSettings> {

    /** Instantiated by Flink, by name, when a savepoint is read. */
    public StateSettingsSerializerSnapshot() {
      super(() -> INSTANCE);
    }
  }
}
