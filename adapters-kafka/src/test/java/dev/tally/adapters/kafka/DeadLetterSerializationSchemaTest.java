package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.SourceRecord;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.Test;

class DeadLetterSerializationSchemaTest {

  private static final long LIMIT = 1_056_780; // the default source topic's limit plus headroom

  private final DeadLetterSerializationSchema schema =
      new DeadLetterSerializationSchema("txs.dlq", LIMIT, Map.of());

  private static StampedRejection stamped(RejectedRecord rejected) {
    return new StampedRejection(new LineagedRejection(rejected, "lineage-1"), 41);
  }

  private static String header(Headers headers, String key) {
    return new String(headers.lastHeader(key).value(), StandardCharsets.UTF_8);
  }

  @Test
  void keepsKeyAndValueBytesAndPutsTheContextInHeaders() {
    byte[] key = {0, 1, (byte) 0xFF};
    byte[] value = {'{', (byte) 0xC3, 0x28};
    RejectedRecord rejected =
        new RejectedRecord(
            RejectionReason.MALFORMED,
            "the value is not valid UTF-8 (at byte 1) — ünïcödé",
            new SourceRecord("txs", 7, 123_456_789_012L, 1_764_411_330_123L, key, value));

    ProducerRecord<byte[], byte[]> record = schema.serialize(stamped(rejected), null, 99L);

    assertThat(record.topic()).isEqualTo("txs.dlq");
    assertThat(record.key()).isEqualTo(key);
    assertThat(record.value()).isEqualTo(value);
    assertThat(record.timestamp())
        .as("left to the producer, so retention never drops replays")
        .isNull();
    assertThat(record.partition()).isNull();
    Headers headers = record.headers();
    assertThat(header(headers, DeadLetterHeaders.REASON)).isEqualTo("MALFORMED");
    assertThat(header(headers, DeadLetterHeaders.MESSAGE)).isEqualTo(rejected.message());
    assertThat(header(headers, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo("txs");
    assertThat(header(headers, DeadLetterHeaders.SOURCE_PARTITION)).isEqualTo("7");
    assertThat(header(headers, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("123456789012");
    assertThat(header(headers, DeadLetterHeaders.SOURCE_TIMESTAMP)).isEqualTo("1764411330123");
    assertThat(header(headers, DeadLetterHeaders.LINEAGE)).isEqualTo("lineage-1");
    assertThat(header(headers, DeadLetterHeaders.AFTER_CHECKPOINT)).isEqualTo("41");
  }

  @Test
  void aTombstoneWithoutKeyStaysATombstoneWithoutKey() {
    RejectedRecord rejected =
        new RejectedRecord(
            RejectionReason.MALFORMED, "tombstone", new SourceRecord("txs", 0, 0, -1, null, null));

    ProducerRecord<byte[], byte[]> record = schema.serialize(stamped(rejected), null, null);

    assertThat(record.key()).isNull();
    assertThat(record.value()).isNull();
    assertThat(header(record.headers(), DeadLetterHeaders.SOURCE_TIMESTAMP)).isEqualTo("-1");
  }

  @Test
  void aValueThatWouldExceedTheLimitIsLeftOutAndMarkedKeepingReasonAndCoordinates() {
    byte[] key = "user-9".getBytes(StandardCharsets.UTF_8);
    byte[] value = new byte[2 * 1024 * 1024];
    RejectedRecord rejected =
        new RejectedRecord(
            RejectionReason.MALFORMED,
            "the value is 2097152 bytes, more than the maximum of 1048576",
            new SourceRecord("txs", 3, 42, 1_764_411_330_123L, key, value));

    ProducerRecord<byte[], byte[]> record = schema.serialize(stamped(rejected), null, null);

    assertThat(record.key()).isEqualTo(key);
    assertThat(record.value()).isNull();
    Headers headers = record.headers();
    assertThat(header(headers, DeadLetterHeaders.OMITTED)).isEqualTo("value");
    assertThat(header(headers, DeadLetterHeaders.OMITTED_DETAIL))
        .contains("more than the " + LIMIT)
        .contains("the value 2097152 bytes");
    assertThat(header(headers, DeadLetterHeaders.REASON)).isEqualTo("MALFORMED");
    assertThat(header(headers, DeadLetterHeaders.MESSAGE)).isEqualTo(rejected.message());
    assertThat(header(headers, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo("txs");
    assertThat(header(headers, DeadLetterHeaders.SOURCE_PARTITION)).isEqualTo("3");
    assertThat(header(headers, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("42");
    assertThat(header(headers, DeadLetterHeaders.SOURCE_TIMESTAMP)).isEqualTo("1764411330123");
    assertThat(DeadLetterRecordSize.upperBound(record.key(), record.value(), headers.toArray()))
        .isLessThanOrEqualTo(LIMIT);
  }

  @Test
  void aKeyTooLargeOnItsOwnIsLeftOutWithTheValue() {
    byte[] key = new byte[(int) LIMIT];
    RejectedRecord rejected =
        new RejectedRecord(
            RejectionReason.MALFORMED,
            "not JSON",
            new SourceRecord("txs", 0, 7, 1L, key, "x".getBytes(StandardCharsets.UTF_8)));

    ProducerRecord<byte[], byte[]> record = schema.serialize(stamped(rejected), null, null);

    assertThat(record.key()).isNull();
    assertThat(record.value()).isNull();
    assertThat(header(record.headers(), DeadLetterHeaders.OMITTED)).isEqualTo("key,value");
    assertThat(header(record.headers(), DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("7");
  }

  @Test
  void aRecordJustUnderTheLimitGoesWholeWithoutMarker() {
    // The largest value whose dead letter still fits, with this record's headers.
    SourceRecord probe = new SourceRecord("txs", 0, 1, 1L, null, new byte[0]);
    RejectedRecord empty = new RejectedRecord(RejectionReason.MALFORMED, "m", probe);
    long headersAndOverhead =
        DeadLetterRecordSize.upperBound(
            null, new byte[0], schema.serialize(stamped(empty), null, null).headers().toArray());
    // The length prefix of a ~1 MB value takes 4 bytes, not the 1 of an empty one.
    int fits = (int) (LIMIT - headersAndOverhead - 3);
    RejectedRecord rejected =
        new RejectedRecord(
            RejectionReason.MALFORMED,
            "m",
            new SourceRecord("txs", 0, 1, 1L, null, new byte[fits]));

    ProducerRecord<byte[], byte[]> record = schema.serialize(stamped(rejected), null, null);

    assertThat(record.value()).hasSize(fits);
    assertThat(record.headers().lastHeader(DeadLetterHeaders.OMITTED)).isNull();
  }

  @Test
  void aVeryLongMessageIsCutSoTheHeadersStayBounded() {
    RejectedRecord rejected =
        new RejectedRecord(
            RejectionReason.MALFORMED,
            "x".repeat(10_000),
            new SourceRecord("txs", 0, 1, 1L, null, new byte[] {1}));

    ProducerRecord<byte[], byte[]> record = schema.serialize(stamped(rejected), null, null);

    assertThat(record.headers().lastHeader(DeadLetterHeaders.MESSAGE).value())
        .hasSize(DeadLetterRecordSize.MAX_MESSAGE_BYTES);
    assertThat(record.value()).containsExactly(1);
  }
}
