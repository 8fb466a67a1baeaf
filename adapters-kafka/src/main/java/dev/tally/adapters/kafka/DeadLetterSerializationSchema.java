package dev.tally.adapters.kafka;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.transaction.SourceRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Writes a rejection as a dead-letter record: the original key and value bytes unchanged, the
 * context in {@link DeadLetterHeaders}. The record timestamp is left to the producer (now): reusing
 * the source timestamp would let time-based retention delete replayed rejections at once.
 */
final class DeadLetterSerializationSchema
    implements KafkaRecordSerializationSchema<RejectedRecord> {

  private static final long serialVersionUID = 1L;

  private final String topic;

  DeadLetterSerializationSchema(String topic) {
    this.topic = topic;
  }

  @Override
  public ProducerRecord<byte[], byte[]> serialize(
      RejectedRecord rejected, KafkaSinkContext context, Long timestamp) {
    SourceRecord source = rejected.source();
    List<Header> headers =
        List.of(
            header(DeadLetterHeaders.REASON, rejected.reason().name()),
            header(DeadLetterHeaders.MESSAGE, rejected.message()),
            header(DeadLetterHeaders.SOURCE_TOPIC, source.topic()),
            header(DeadLetterHeaders.SOURCE_PARTITION, Integer.toString(source.partition())),
            header(DeadLetterHeaders.SOURCE_OFFSET, Long.toString(source.offset())),
            header(DeadLetterHeaders.SOURCE_TIMESTAMP, Long.toString(source.timestampMillis())));
    return new ProducerRecord<>(
        topic, null, null, source.key(), source.value(), new RecordHeaders(headers));
  }

  private static Header header(String key, String value) {
    return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
  }
}
