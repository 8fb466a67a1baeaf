package dev.tally.runtime.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.spending.StateSetting;
import dev.tally.domain.spending.StateSettings;
import dev.tally.domain.window.TumblingWindows;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.types.StringValue;
import org.junit.jupiter.api.Test;

/** Flink's conformance suite for serializers, over the recorded aggregation settings. */
class StateSettingsSerializerTest extends SerializerTestBase<StateSettings> {

  @Override
  protected TypeSerializer<StateSettings> createSerializer() {
    return StateSettingsSerializer.INSTANCE;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<StateSettings> getTypeClass() {
    return StateSettings.class;
  }

  @Override
  protected StateSettings[] getTestData() {
    return new StateSettings[] {
      StateSettings.of(TumblingWindows.of(Duration.ofHours(1)), Duration.ZERO, Duration.ofDays(1)),
      StateSettings.of(
          new TumblingWindows(Duration.ofMillis(1_500), Duration.ofMillis(7)),
          Duration.ofMinutes(30),
          Duration.ofDays(400)),
      new StateSettings(Map.of()),
      new StateSettings(Map.of(StateSetting.DEDUPE_RETENTION, "\u00e9\u4e2d\ud83d\ude00")),
    };
  }

  /** A release that records a setting this one does not know writes a pair this one skips. */
  @Test
  void aSettingOfALaterReleaseIsSkipped() throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    out.writeInt(2);
    StringValue.writeString("anomaly-rule", out);
    StringValue.writeString("k=4,min=20", out);
    StringValue.writeString(StateSetting.WINDOW_SIZE.id(), out);
    StringValue.writeString("PT1H", out);

    StateSettings read =
        StateSettingsSerializer.INSTANCE.deserialize(
            new DataInputDeserializer(out.getCopyOfBuffer()));

    assertThat(read.values()).containsExactly(Map.entry(StateSetting.WINDOW_SIZE, "PT1H"));
  }
}
