package dev.tally.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tally.runtime.TallyMain;
import dev.tally.runtime.config.ConfigSource;
import dev.tally.runtime.config.ConfigurationException;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.stack.KafkaBroker;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The start's check of the Kafka sinks' topics against a real broker, as {@code TallyMain} runs it
 * ({@link TallyMain#prepareKafkaSinks}): with anomalies on, a missing anomaly topic is created like
 * the dead-letter topic, sized for an alert, and one that exists but cannot take the alerts fails
 * the start naming {@code anomalies.kafka.topic}, before any topic is created.
 */
class SinkTopicsIT {

  @TempDir static Path workDir;
  private static KafkaBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = KafkaBroker.start(workDir.resolve("kafka"));
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void withAnomaliesOnAMissingAnomalyTopicIsCreatedSizedForAnAlert() throws Exception {
    String source = "tx-" + UUID.randomUUID();
    broker.createTopic(source, 2, Map.of("retention.ms", "-1"));

    TallyMain.prepareKafkaSinks(config(source, true));

    assertThat(topics()).contains(source + ".dlq", source + ".anomalies");
    Config alerts = topicConfig(source + ".anomalies");
    assertThat(alerts.get("max.message.bytes").value()).isEqualTo("4096");
    assertThat(alerts.get("cleanup.policy").value()).isEqualTo("delete");
  }

  @Test
  void withAnomaliesOffNoAnomalyTopicIsCreated() throws Exception {
    String source = "tx-" + UUID.randomUUID();
    broker.createTopic(source, 1, Map.of("retention.ms", "-1"));

    TallyMain.prepareKafkaSinks(config(source, false));

    assertThat(topics()).contains(source + ".dlq").doesNotContain(source + ".anomalies");
  }

  @Test
  void anAnomalyTopicThatCannotTakeTheAlertsFailsTheStartNamingItsKey() throws Exception {
    String source = "tx-" + UUID.randomUUID();
    broker.createTopic(source, 1, Map.of("retention.ms", "-1"));
    broker.createTopic(
        source + ".anomalies", 1, Map.of("cleanup.policy", "compact", "max.message.bytes", "1000"));

    ConfigurationException refused =
        catchThrowableOfType(
            ConfigurationException.class, () -> TallyMain.prepareKafkaSinks(config(source, true)));

    assertThat(refused).as("the start refuses the anomaly topic").isNotNull();
    assertThat(refused.problems())
        .hasSize(2)
        .allSatisfy(
            p ->
                assertThat(p)
                    .startsWith("anomalies.kafka.topic: the topic " + source + ".anomalies has "))
        .anySatisfy(p -> assertThat(p).contains("max.message.bytes=1000", "at least 4096"))
        .anySatisfy(p -> assertThat(p).contains("cleanup.policy=compact"));
    assertThat(topics()).as("nothing created").doesNotContain(source + ".dlq");
  }

  private static TallyConfig config(String source, boolean anomalies) {
    Map<String, String> keys = new HashMap<>();
    keys.put("kafka.bootstrap-servers", broker.bootstrapServers());
    keys.put("kafka.source.topics", source);
    keys.put("state.checkpoint-directory", workDir.resolve("checkpoints").toUri().toString());
    keys.put("iceberg.catalog.warehouse", workDir.resolve("warehouse").toUri().toString());
    keys.put("anomalies.enabled", Boolean.toString(anomalies));
    return TallyConfig.read(ConfigSource.of(keys));
  }

  private static Set<String> topics() throws Exception {
    try (Admin admin = admin()) {
      return admin.listTopics().names().get(30, TimeUnit.SECONDS);
    }
  }

  private static Config topicConfig(String topic) throws Exception {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try (Admin admin = admin()) {
      return admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
    }
  }

  private static Admin admin() {
    Properties props = new Properties();
    props.put("bootstrap.servers", broker.bootstrapServers());
    return Admin.create(props);
  }
}
