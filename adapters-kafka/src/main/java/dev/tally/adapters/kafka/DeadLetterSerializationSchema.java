package dev.tally.adapters.kafka;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.transaction.SourceRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a rejection as a dead-letter record: the original key and value bytes unchanged, the
 * context in {@link DeadLetterHeaders}, with the lineage and checkpoint a restore checks it by
 * ({@link DeadLetterLineage}). The record timestamp is left to the producer (now): reusing the
 * source timestamp would let time-based retention delete replayed rejections at once.
 *
 * <p>A dead letter that would exceed what the producer or the topic accepts is decided here, before
 * it is sent, and sent without the original value (then without the key too), marked by {@link
 * DeadLetterHeaders#OMITTED}; the reason, message and source coordinates always stay. Sending it
 * whole instead would fail the send, which aborts the Kafka transaction and fails the task, and the
 * restore would replay the same record: a restart loop. The topic's limit is read whenever the
 * writer opens (at start and after every restore), so a limit lowered while the job runs costs at
 * most one failover.
 */
final class DeadLetterSerializationSchema
    implements KafkaRecordSerializationSchema<StampedRejection> {

  private static final long serialVersionUID = 1L;

  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterSerializationSchema.class);

  private final String topic;
  private final long producerLimit;
  private final Map<String, String> adminProperties;

  private long limit;
  private transient Counter oversized;

  /**
   * @param topic the dead-letter topic
   * @param producerLimit the smaller of the producer's {@code max.request.size} and {@code
   *     buffer.memory}
   * @param adminProperties where and how to read the topic's {@code max.message.bytes} when the
   *     writer opens; empty to judge by the producer's limit alone
   */
  DeadLetterSerializationSchema(
      String topic, long producerLimit, Map<String, String> adminProperties) {
    this.topic = topic;
    this.producerLimit = producerLimit;
    this.adminProperties = Map.copyOf(adminProperties);
    this.limit = producerLimit;
  }

  @Override
  public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext)
      throws Exception {
    if (oversized != null) {
      // The connector's exactly-once writer opens its serializer twice (its constructor and its
      // parent's): a second counter of the same name would not be reported.
      return;
    }
    limit = producerLimit;
    if (!adminProperties.isEmpty()) {
      OptionalLong topicLimit = DeadLetterSizing.readTopicLimit(adminProperties, topic);
      if (topicLimit.isPresent()) {
        limit = Math.min(producerLimit, topicLimit.getAsLong());
      }
    }
    oversized = context.getMetricGroup().addGroup("tally").counter("oversizedDeadLetters");
  }

  @Override
  public ProducerRecord<byte[], byte[]> serialize(
      StampedRejection stamped, KafkaSinkContext context, Long timestamp) {
    RejectedRecord rejected = stamped.lineaged().rejected();
    SourceRecord source = rejected.source();
    List<Header> headers = new ArrayList<>(10);
    headers.add(header(DeadLetterHeaders.REASON, rejected.reason().name()));
    headers.add(
        new RecordHeader(
            DeadLetterHeaders.MESSAGE,
            DeadLetterRecordSize.utf8AtMost(
                rejected.message(), DeadLetterRecordSize.MAX_MESSAGE_BYTES)));
    headers.add(header(DeadLetterHeaders.SOURCE_TOPIC, source.topic()));
    headers.add(header(DeadLetterHeaders.SOURCE_PARTITION, Integer.toString(source.partition())));
    headers.add(header(DeadLetterHeaders.SOURCE_OFFSET, Long.toString(source.offset())));
    headers.add(
        header(DeadLetterHeaders.SOURCE_TIMESTAMP, Long.toString(source.timestampMillis())));
    headers.add(header(DeadLetterHeaders.LINEAGE, stamped.lineaged().lineage()));
    headers.add(
        header(DeadLetterHeaders.AFTER_CHECKPOINT, Long.toString(stamped.afterCheckpoint())));
    byte[] key = source.key();
    byte[] value = source.value();
    long whole = DeadLetterRecordSize.upperBound(key, value, headers.toArray(Header[]::new));
    if (whole > limit) {
      // The marker headers are added before the key's fate is decided, so that it counts them.
      String omitted = "value";
      List<Header> marked = withOmission(headers, omitted, whole, key, value);
      if (DeadLetterRecordSize.upperBound(key, null, marked.toArray(Header[]::new)) > limit) {
        omitted = "key,value";
        marked = withOmission(headers, omitted, whole, key, value);
        key = null;
      }
      value = null;
      headers = marked;
      if (oversized != null) {
        oversized.inc();
      }
      LOG.warn(
          "Dead letter of {}-{}@{} ({}) sent without its {}: {} bytes, more than the {} the"
              + " dead-letter path accepts",
          source.topic(),
          source.partition(),
          source.offset(),
          rejected.reason(),
          omitted,
          whole,
          limit);
    }
    return new ProducerRecord<>(topic, null, null, key, value, new RecordHeaders(headers));
  }

  /** The limit the next records are judged by: for tests. */
  long limit() {
    return limit;
  }

  private List<Header> withOmission(
      List<Header> headers, String omitted, long whole, byte[] key, byte[] value) {
    List<Header> marked = new ArrayList<>(headers);
    marked.add(header(DeadLetterHeaders.OMITTED, omitted));
    marked.add(
        header(
            DeadLetterHeaders.OMITTED_DETAIL,
            "the dead letter would have been "
                + whole
                + " bytes, more than the "
                + limit
                + " the dead-letter producer and topic accept; the original key was "
                + (key == null ? "null" : key.length + " bytes")
                + ", the value "
                + (value == null ? "null" : value.length + " bytes")));
    return marked;
  }

  private static Header header(String key, String value) {
    return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
  }
}
