package dev.tally.runtime.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.anomaly.Baseline;
import dev.tally.domain.anomaly.BaselineHead;
import java.math.BigInteger;
import java.util.stream.LongStream;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Flink's conformance suite for serializers, over the anomaly baseline's heads, and the head's size
 * that docs/behaviour.md "Anomalies" quotes.
 */
class BaselineHeadSerializerTest extends SerializerTestBase<BaselineHead> {

  private static final long HOUR = 493_000L;

  /** A head of a key with a bucket in each of the 168 hours before its cursor. */
  static BaselineHead busyKey() {
    return new BaselineHead(
        HOUR,
        new Baseline(
            168 * 40, BigInteger.valueOf(168 * 40 * 2_500L), BigInteger.valueOf(42L << 33)),
        LongStream.range(HOUR - 168, HOUR).toArray());
  }

  @Override
  protected TypeSerializer<BaselineHead> createSerializer() {
    return BaselineHeadSerializer.INSTANCE;
  }

  @Override
  protected boolean allowNullInstances(TypeSerializer<BaselineHead> serializer) {
    return true;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<BaselineHead> getTypeClass() {
    return BaselineHead.class;
  }

  @Override
  protected BaselineHead[] getTestData() {
    BigInteger huge = BigInteger.valueOf(Long.MAX_VALUE).pow(2).multiply(BigInteger.TEN);
    return new BaselineHead[] {
      BaselineHead.empty(HOUR),
      busyKey(),
      new BaselineHead(
          Long.MIN_VALUE / 4,
          new Baseline(Long.MAX_VALUE, huge, huge.pow(2)),
          new long[] {Long.MIN_VALUE / 2, -1, 0, 1, Long.MAX_VALUE / 2}),
    };
  }

  @Test
  void aBusyKeysHeadTakesAboutTwoHundredBytes() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(256);
    BaselineHeadSerializer.INSTANCE.serialize(busyKey(), out);
    assertThat(out.length()).isBetween(190, 215);
  }
}
