package dev.tally.ports.types;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.junit.jupiter.api.Test;

/** Flink's conformance suite for serializers, over transactions at the edges of their rules. */
class SourcedTransactionSerializerTest extends SerializerTestBase<SourcedTransaction> {

  @Override
  protected TypeSerializer<SourcedTransaction> createSerializer() {
    return SourcedTransactionSerializer.INSTANCE;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<SourcedTransaction> getTypeClass() {
    return SourcedTransaction.class;
  }

  @Override
  protected SourcedTransaction[] getTestData() {
    byte[] json =
        "{\"transaction_id\":\"tx-1\",\"user_id\":\"ü\"}".getBytes(StandardCharsets.UTF_8);
    return new SourcedTransaction[] {
      sourced(
          new Transaction("tx-1", "user-1", 1_999, "EUR", Instant.parse("2026-11-29T10:15:30Z")),
          new SourceRecord("financial-transactions", 3, 42, 1_764_410_130_000L, null, json)),
      sourced(
          new Transaction(
              "tx-\u00e9\u00df\u4e2d\ud83d\ude00", // Latin-1, CJK and a surrogate pair
              "Jos\u00e9 M\u00fcller",
              -5_000,
              "GBP",
              Instant.parse("2026-01-01T00:00:00.123Z")),
          new SourceRecord("t", 0, 0, -1, new byte[] {1, 2, 3}, new byte[0])),
      sourced(
          new Transaction("a", "b", Long.MIN_VALUE, "USD", Instant.parse("0001-01-01T00:00:00Z")),
          new SourceRecord("t", Integer.MAX_VALUE, Long.MAX_VALUE, Long.MIN_VALUE, null, null)),
      sourced(
          new Transaction("x".repeat(128), "y".repeat(128), Long.MAX_VALUE, "JPY", maxEventTime()),
          new SourceRecord("\u00fcber-topic", 7, 1, Long.MAX_VALUE, new byte[0], new byte[1024])),
    };
  }

  private static Instant maxEventTime() {
    return Instant.parse("9999-12-31T23:59:59.999Z");
  }

  private static SourcedTransaction sourced(Transaction tx, SourceRecord source) {
    return new SourcedTransaction(tx, source);
  }

  @Test
  void theTypeInformationCreatesThisSerializerWithoutKryo() {
    SerializerConfigImpl config = new SerializerConfigImpl();
    config.setGenericTypes(false);

    assertThat(TallyTypes.SOURCED_TRANSACTION.getTypeClass()).isEqualTo(SourcedTransaction.class);
    assertThat(TallyTypes.SOURCED_TRANSACTION.createSerializer(config))
        .isSameAs(SourcedTransactionSerializer.INSTANCE);
    assertThat(TallyTypes.SOURCED_TRANSACTION)
        .isEqualTo(
            new SerializerTypeInfo<>(
                SourcedTransaction.class, SourcedTransactionSerializer.INSTANCE));
  }
}
