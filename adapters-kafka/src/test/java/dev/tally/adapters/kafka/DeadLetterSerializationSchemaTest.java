package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.SourceRecord;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.Test;

class DeadLetterSerializationSchemaTest {

  private final DeadLetterSerializationSchema schema = new DeadLetterSerializationSchema("txs.dlq");

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

    ProducerRecord<byte[], byte[]> record = schema.serialize(rejected, null, 99L);

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
  }

  @Test
  void aTombstoneWithoutKeyStaysATombstoneWithoutKey() {
    RejectedRecord rejected =
        new RejectedRecord(
            RejectionReason.MALFORMED, "tombstone", new SourceRecord("txs", 0, 0, -1, null, null));

    ProducerRecord<byte[], byte[]> record = schema.serialize(rejected, null, null);

    assertThat(record.key()).isNull();
    assertThat(record.value()).isNull();
    assertThat(header(record.headers(), DeadLetterHeaders.SOURCE_TIMESTAMP)).isEqualTo("-1");
  }
}
