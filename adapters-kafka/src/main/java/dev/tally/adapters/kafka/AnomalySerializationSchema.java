package dev.tally.adapters.kafka;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tally.domain.anomaly.Anomaly;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * An anomaly as a Kafka record: keyed by {@code user_id} (UTF-8), so one user's alerts keep their
 * order on one partition; the value one JSON object with the columns of the anomaly table, {@code
 * event_timestamp} as an ISO-8601 instant, the amounts and counts as JSON integers, mean, standard
 * deviation and score as JSON numbers ({@code score} null when σ is 0).
 */
final class AnomalySerializationSchema implements KafkaRecordSerializationSchema<Anomaly> {

  private static final long serialVersionUID = 1L;

  private static final JsonFactory JSON = new JsonFactory();

  private final String topic;

  AnomalySerializationSchema(String topic) {
    this.topic = topic;
  }

  @Override
  public ProducerRecord<byte[], byte[]> serialize(
      Anomaly anomaly, KafkaSinkContext context, Long timestamp) {
    return new ProducerRecord<>(
        topic, anomaly.userId().getBytes(StandardCharsets.UTF_8), json(anomaly));
  }

  static byte[] json(Anomaly anomaly) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (JsonGenerator out = JSON.createGenerator(bytes, JsonEncoding.UTF8)) {
      out.writeStartObject();
      out.writeStringField("transaction_id", anomaly.transactionId());
      out.writeStringField("user_id", anomaly.userId());
      out.writeStringField("currency", anomaly.currency());
      out.writeStringField(
          "event_timestamp", Instant.ofEpochMilli(anomaly.eventTimeMillis()).toString());
      out.writeNumberField("amount_cents", anomaly.amountCents());
      out.writeNumberField("baseline_count", anomaly.baselineCount());
      out.writeNumberField("baseline_mean_cents", anomaly.baselineMeanCents());
      out.writeNumberField("baseline_stddev_cents", anomaly.baselineStddevCents());
      out.writeFieldName("score");
      if (anomaly.score() == null) {
        out.writeNull();
      } else {
        out.writeNumber(anomaly.score());
      }
      out.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("writing an anomaly as JSON", e);
    }
    return bytes.toByteArray();
  }
}
