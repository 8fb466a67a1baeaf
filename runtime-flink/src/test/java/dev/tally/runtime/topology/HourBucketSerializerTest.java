package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.HourBucket;
import java.math.BigInteger;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink's conformance suite for serializers, over the anomaly state's HourBucket values. */
class HourBucketSerializerTest extends SerializerTestBase<HourBucket> {

  @Override
  protected TypeSerializer<HourBucket> createSerializer() {
    return HourBucketSerializer.INSTANCE;
  }

  @Override
  protected boolean allowNullInstances(TypeSerializer<HourBucket> serializer) {
    return true;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<HourBucket> getTypeClass() {
    return HourBucket.class;
  }

  @Override
  protected HourBucket[] getTestData() {
    return new HourBucket[] {
      new HourBucket(1, BigInteger.ONE, BigInteger.ONE),
      new HourBucket(
          3,
          BigInteger.valueOf(Long.MAX_VALUE).multiply(BigInteger.valueOf(3)),
          BigInteger.valueOf(Long.MAX_VALUE).pow(2).multiply(BigInteger.valueOf(3))),
      new HourBucket(Long.MAX_VALUE, BigInteger.valueOf(-5), BigInteger.ZERO)
    };
  }
}
