package dev.tally.runtime.topology;

import dev.tally.domain.spending.SeenTransaction;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink's conformance suite for serializers, over the dedupe state's values. */
class SeenTransactionSerializerTest extends SerializerTestBase<SeenTransaction> {

  @Override
  protected TypeSerializer<SeenTransaction> createSerializer() {
    return SeenTransactionSerializer.INSTANCE;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<SeenTransaction> getTypeClass() {
    return SeenTransaction.class;
  }

  @Override
  protected SeenTransaction[] getTestData() {
    return new SeenTransaction[] {
      new SeenTransaction(1_999, "EUR", 1_764_410_130_000L),
      new SeenTransaction(-5_000, "GBP", 0),
      new SeenTransaction(Long.MIN_VALUE, "USD", Long.MIN_VALUE),
      new SeenTransaction(Long.MAX_VALUE, "JPY", Long.MAX_VALUE),
      // Not a currency the domain accepts, but the serializer must not depend on that.
      new SeenTransaction(0, "\u00e9\u4e2d\ud83d\ude00 long-currency", -1),
      new SeenTransaction(0, "", 253_402_300_799_999L),
    };
  }
}
