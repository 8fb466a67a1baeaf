package dev.tally.runtime.topology;

import static dev.tally.domain.fixtures.Transactions.aTransaction;

import dev.tally.domain.spending.SeenIds;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink's conformance suite for serializers, over the dedupe state's per-user values. */
class SeenIdsSerializerTest extends SerializerTestBase<SeenIds> {

  @Override
  protected TypeSerializer<SeenIds> createSerializer() {
    return SeenIdsSerializer.INSTANCE;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<SeenIds> getTypeClass() {
    return SeenIds.class;
  }

  @Override
  protected SeenIds[] getTestData() {
    SeenIds fingerprints = SeenIds.empty();
    SeenIds full = SeenIds.empty();
    SeenIds mixed = SeenIds.empty();
    for (int i = 0; i < 40; i++) {
      var tx = aTransaction().id("tx-\u00e9-" + i).amount(i - 20).currency("GBP").build();
      fingerprints.add(tx, false);
      full.add(tx, true);
      mixed.add(tx, i % 3 == 0);
    }
    SeenIds extremes = SeenIds.empty();
    extremes.append(Long.MIN_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, 0, null);
    extremes.append(Long.MAX_VALUE, Long.MAX_VALUE, Long.MIN_VALUE, -1, "\ud83d\ude00");
    return new SeenIds[] {SeenIds.empty(), fingerprints, full, mixed, extremes};
  }
}
