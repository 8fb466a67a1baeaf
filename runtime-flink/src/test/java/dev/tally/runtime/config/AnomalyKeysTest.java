package dev.tally.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.adapters.kafka.AnomalyDelivery;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.runtime.config.AnomalyKeys.AnomalyConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AnomalyKeysTest {

  private static TallyConfig read(Map<String, String> more) {
    Map<String, String> keys =
        new HashMap<>(
            Map.of(
                "kafka.bootstrap-servers", "127.0.0.1:9092",
                "state.checkpoint-directory", "file:///var/tally/checkpoints",
                "iceberg.catalog.warehouse", "file:///var/tally/warehouse"));
    keys.putAll(more);
    return TallyConfig.read(ConfigSource.of(keys));
  }

  @Test
  void defaultsAreOffWithTheSpecsRuleTableAndTopic() {
    AnomalyConfig anomalies = read(Map.of()).anomalies();
    assertThat(anomalies)
        .isEqualTo(
            new AnomalyConfig(
                false,
                new AnomalyRule(400, 20),
                "analytics",
                "spending_anomalies",
                "financial-transactions.anomalies",
                AnomalyDelivery.EXACTLY_ONCE,
                "tally-anomalies",
                false));
  }

  @Test
  void everyKeyMapsToItsSetting() {
    AnomalyConfig anomalies =
        read(Map.of(
                "anomalies.enabled", "true",
                "anomalies.min-baseline", "5",
                "anomalies.k", "2.75",
                "anomalies.table", "risk.alerts.by_user",
                "anomalies.kafka.topic", "alerts",
                "anomalies.kafka.delivery", "at-least-once",
                "anomalies.kafka.continue-after-lost-transactions", "true",
                "kafka.source.topics", "payments",
                "job.name", "payments-job"))
            .anomalies();
    assertThat(anomalies)
        .isEqualTo(
            new AnomalyConfig(
                true,
                new AnomalyRule(275, 5),
                "risk.alerts",
                "by_user",
                "alerts",
                AnomalyDelivery.AT_LEAST_ONCE,
                "payments-job-anomalies",
                true));
    assertThat(read(Map.of("kafka.source.topics", "payments")).anomalies().topic())
        .isEqualTo("payments.anomalies");
  }

  @Test
  void badValuesAreReportedTogetherEachWithItsKey() {
    assertThatThrownBy(
            () ->
                read(
                    Map.of(
                        "anomalies.k", "4.125",
                        "anomalies.min-baseline", "0",
                        "anomalies.table", "no_namespace",
                        "anomalies.kafka.delivery", "twice")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("anomalies.k:")
        .hasMessageContaining("anomalies.min-baseline:")
        .hasMessageContaining("anomalies.table:")
        .hasMessageContaining("anomalies.kafka.delivery:");
  }

  @Test
  void aDeadLetterPrefixEqualToTheAnomalyProducersIsRefusedWithAnomaliesOn() {
    Map<String, String> clash =
        Map.of(
            "job.name", "payments",
            "kafka.dead-letter.transactional-id-prefix", "payments-anomalies");

    assertThatThrownBy(() -> read(with(clash, "anomalies.enabled", "true")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining(
            "kafka.dead-letter.transactional-id-prefix: payments-anomalies is the anomaly"
                + " producer's prefix");
    assertThat(read(clash).anomalies().enabled()).as("no anomaly producer, no clash").isFalse();
  }

  private static Map<String, String> with(Map<String, String> keys, String key, String value) {
    Map<String, String> more = new HashMap<>(keys);
    more.put(key, value);
    return more;
  }
}
