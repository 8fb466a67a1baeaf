package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.Anomaly;
import java.math.BigDecimal;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink's conformance suite for serializers, over anomalies on their way to the sinks. */
class AnomalySerializerTest extends SerializerTestBase<Anomaly> {

  @Override
  protected TypeSerializer<Anomaly> createSerializer() {
    return AnomalySerializer.INSTANCE;
  }

  @Override
  protected boolean allowNullInstances(TypeSerializer<Anomaly> serializer) {
    return true;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<Anomaly> getTypeClass() {
    return Anomaly.class;
  }

  @Override
  protected Anomaly[] getTestData() {
    return new Anomaly[] {
      new Anomaly(
          "tx-1",
          "user-1",
          "EUR",
          1_764_410_130_000L,
          90_000,
          25,
          new BigDecimal("1000.04"),
          new BigDecimal("12.5"),
          new BigDecimal("7119.6")),
      new Anomaly(
          "\u00e9\u4e2d\ud83d\ude00",
          "",
          "JPY",
          Long.MIN_VALUE,
          Long.MAX_VALUE,
          Long.MAX_VALUE,
          new BigDecimal("9223372036854775806.5000000000000000000000000000001"),
          BigDecimal.ZERO,
          null),
    };
  }
}
