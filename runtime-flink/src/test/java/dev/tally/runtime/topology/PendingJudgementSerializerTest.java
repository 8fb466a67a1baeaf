package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.PendingJudgement;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink's conformance suite for serializers, over the anomaly state's PendingJudgement values. */
class PendingJudgementSerializerTest extends SerializerTestBase<PendingJudgement> {

  @Override
  protected TypeSerializer<PendingJudgement> createSerializer() {
    return PendingJudgementSerializer.INSTANCE;
  }

  @Override
  protected boolean allowNullInstances(TypeSerializer<PendingJudgement> serializer) {
    return true;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<PendingJudgement> getTypeClass() {
    return PendingJudgement.class;
  }

  @Override
  protected PendingJudgement[] getTestData() {
    return new PendingJudgement[] {
      new PendingJudgement("tx-1", "EUR", 1_764_410_130_000L, 1),
      new PendingJudgement("\\u00e9\\u4e2d\\ud83d\\ude00", "", Long.MIN_VALUE, Long.MAX_VALUE)
    };
  }
}
