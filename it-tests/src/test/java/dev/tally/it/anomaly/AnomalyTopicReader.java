package dev.tally.it.anomaly;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.it.support.CommittedRecords;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads Tally's anomaly topic as a downstream consumer would ({@code read_committed}, every
 * partition) into the reports its alerts carry, repeats included (docs/behaviour.md "Anomalies":
 * one JSON object per anomaly, keyed by {@code user_id}).
 */
public final class AnomalyTopicReader {

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private AnomalyTopicReader() {}

  /**
   * Every committed alert of {@code topic}: read until {@code expected} have arrived and a little
   * longer, so that copies beyond the expected ones are seen too.
   *
   * @throws AssertionError if an alert is not keyed by its user
   */
  public static List<AnomalyReport> read(String bootstrapServers, String topic, int expected) {
    List<AnomalyReport> alerts = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r :
        CommittedRecords.read(bootstrapServers, topic, expected)) {
      AnomalyReport alert = parse(r.value());
      String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
      if (!alert.userId().equals(key)) {
        throw new AssertionError("an alert keyed " + key + " for " + alert.id() + " in " + topic);
      }
      alerts.add(alert);
    }
    return alerts;
  }

  private static AnomalyReport parse(byte[] value) {
    try {
      JsonNode json = JSON.readTree(value);
      JsonNode score = json.get("score");
      return new AnomalyReport(
          json.get("transaction_id").asText(),
          json.get("user_id").asText(),
          json.get("currency").asText(),
          Instant.parse(json.get("event_timestamp").asText()),
          json.get("amount_cents").longValue(),
          json.get("baseline_count").longValue(),
          json.get("baseline_mean_cents").decimalValue(),
          json.get("baseline_stddev_cents").decimalValue(),
          score.isNull() ? null : score.decimalValue().doubleValue());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
