package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.ports.config.ConfigReader;
import dev.tally.ports.config.InvalidConfigException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaSourceConfigTest {

  @Test
  void defaultsFollowTheSpec() {
    KafkaSourceConfig options =
        KafkaSourceConfig.builder().bootstrapServers("127.0.0.1:9092").build();

    assertThat(options.topics()).containsExactly("financial-transactions");
    assertThat(options.startupMode()).isEqualTo(StartupMode.LATEST);
    assertThat(options.outOfOrderness()).isEqualTo(Duration.ofSeconds(5));
    assertThat(options.idleTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(options.maxRecordBytes()).isEqualTo(1024 * 1024);
    assertThat(options.maxFutureSkew()).isEqualTo(Duration.ofHours(1));
    assertThat(options.bounded()).isFalse();
    assertThat(DeadLetterConfig.defaultTopicFor(options.topics().get(0)))
        .isEqualTo("financial-transactions.dlq");
  }

  @Test
  void readingNothingButTheBrokersGivesTheBuildersDefaults() {
    ConfigReader r = new ConfigReader(Map.of("kafka.bootstrap-servers", "127.0.0.1:9092"));

    assertThat(KafkaSourceConfig.read(r, "tally"))
        .isEqualTo(KafkaSourceConfig.builder().bootstrapServers("127.0.0.1:9092").build());
    assertThat(DeadLetterConfig.read(r, "tally"))
        .isEqualTo(DeadLetterConfig.builder().bootstrapServers("127.0.0.1:9092").build());
    assertThat(r.problems()).isEmpty();
  }

  @Test
  void theConsumerGroupAndTheTransactionalIdPrefixAreTheJobsOwnUnlessSet() {
    ConfigReader r = new ConfigReader(Map.of("kafka.bootstrap-servers", "127.0.0.1:9092"));

    KafkaSourceConfig first = KafkaSourceConfig.read(r, "payments-eu");
    KafkaSourceConfig second = KafkaSourceConfig.read(r, "payments-us");
    DeadLetterConfig firstDlq = DeadLetterConfig.read(r, "payments-eu");
    DeadLetterConfig secondDlq = DeadLetterConfig.read(r, "payments-us");

    assertThat(first.groupId()).isEqualTo("payments-eu");
    assertThat(second.groupId()).isEqualTo("payments-us");
    assertThat(firstDlq.transactionalIdPrefix()).isEqualTo("payments-eu-dlq");
    assertThat(secondDlq.transactionalIdPrefix()).isEqualTo("payments-us-dlq");
    // The default job name keeps the group and prefix that jobs had before they derived from it.
    assertThat(KafkaSourceConfig.read(r, "tally").groupId()).isEqualTo("tally");
    assertThat(DeadLetterConfig.read(r, "tally").transactionalIdPrefix()).isEqualTo("tally-dlq");
    assertThat(r.problems()).isEmpty();
  }

  @Test
  void anExplicitConsumerGroupAndPrefixWinOverTheJobsName() {
    ConfigReader r =
        new ConfigReader(
            Map.of(
                "kafka.bootstrap-servers", "127.0.0.1:9092",
                "kafka.source.group-id", "shared-group",
                "kafka.dead-letter.transactional-id-prefix", "shared-prefix"));

    assertThat(KafkaSourceConfig.read(r, "payments-eu").groupId()).isEqualTo("shared-group");
    assertThat(DeadLetterConfig.read(r, "payments-eu").transactionalIdPrefix())
        .isEqualTo("shared-prefix");
  }

  @Test
  void everyKeyMapsToItsSetting() {
    ConfigReader r =
        new ConfigReader(
            Map.ofEntries(
                Map.entry("kafka.bootstrap-servers", "b1:9092,b2:9092"),
                Map.entry("kafka.properties.security.protocol", "SASL_SSL"),
                Map.entry("kafka.source.topic-pattern", "tx-.*"),
                Map.entry("kafka.source.group-id", "g"),
                Map.entry("kafka.source.startup-mode", "committed"),
                Map.entry("kafka.source.committed-fallback", "latest"),
                Map.entry("kafka.source.startup-timestamp", "2026-11-01T00:00:00Z"),
                Map.entry("kafka.source.bounded", "true"),
                Map.entry("kafka.source.partition-discovery-interval", "1m"),
                Map.entry("kafka.source.properties.fetch.min.bytes", "1024"),
                Map.entry("input.max-record-bytes", "512KiB"),
                Map.entry("input.max-future-skew", "30m"),
                Map.entry("watermarks.out-of-orderness", "2s"),
                Map.entry("watermarks.idle-timeout", "0s"),
                Map.entry("kafka.dead-letter.topic", "dead"),
                Map.entry("kafka.dead-letter.transactional-id-prefix", "tx"),
                Map.entry("kafka.dead-letter.transaction-timeout", "14m"),
                Map.entry("kafka.dead-letter.pool-transactional-ids", "true"),
                Map.entry("kafka.dead-letter.continue-after-lost-transactions", "true"),
                Map.entry("kafka.dead-letter.properties.linger.ms", "5")));

    assertThat(KafkaSourceConfig.read(r, "tally"))
        .isEqualTo(
            new KafkaSourceConfig(
                "b1:9092,b2:9092",
                List.of(),
                "tx-.*",
                "g",
                StartupMode.COMMITTED,
                StartupMode.LATEST,
                Instant.parse("2026-11-01T00:00:00Z"),
                true,
                Duration.ofMinutes(1),
                Map.of("security.protocol", "SASL_SSL", "fetch.min.bytes", "1024"),
                Duration.ofSeconds(2),
                Duration.ZERO,
                512 * 1024,
                Duration.ofMinutes(30)));
    assertThat(DeadLetterConfig.read(r, "tally"))
        .isEqualTo(
            new DeadLetterConfig(
                "b1:9092,b2:9092",
                "dead",
                "tx",
                Duration.ofMinutes(14),
                true,
                Map.of("security.protocol", "SASL_SSL", "linger.ms", "5"),
                true));
    assertThat(r.problems()).isEmpty();
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    KafkaSourceConfig.Builder builder =
        KafkaSourceConfig.builder()
            .topicPattern("(unclosed")
            .groupId(" ")
            .startupMode(StartupMode.TIMESTAMP)
            .outOfOrderness(Duration.ofSeconds(-1))
            .maxRecordBytes(0)
            .clientProperty("group.id", "sneaky")
            .clientProperty("security.protocol", "SASL_SSL");

    assertThatThrownBy(builder::build)
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContainingAll(
            "kafka.bootstrap-servers: must be set",
            "kafka.source.topic-pattern: is no regular expression",
            "kafka.source.group-id: must be set",
            "kafka.source.startup-timestamp: must be set with kafka.source.startup-mode timestamp",
            "watermarks.out-of-orderness: must not be negative",
            "input.max-record-bytes: must be at least 1",
            "kafka.source.properties.group.id: set by the source itself")
        .message()
        .doesNotContain("security.protocol");
  }

  @Test
  void topicsAndPatternAreExclusiveAndTheLastOneWins() {
    KafkaSourceConfig options =
        KafkaSourceConfig.builder()
            .bootstrapServers("b:1")
            .topics(List.of("a"))
            .topicPattern("tx-.*")
            .build();

    assertThat(options.topics()).isEmpty();
    assertThat(options.compiledTopicPattern())
        .hasValueSatisfying(p -> assertThat(p.pattern()).isEqualTo("tx-.*"));
  }

  @Test
  void aStartupTimestampImpliesTimestampMode() {
    Instant from = Instant.parse("2026-11-01T00:00:00Z");

    KafkaSourceConfig options =
        KafkaSourceConfig.builder().bootstrapServers("b:1").startupTimestamp(from).build();

    assertThat(options.startupMode()).isEqualTo(StartupMode.TIMESTAMP);
    assertThat(options.startupTimestamp()).isEqualTo(from);
  }

  @Test
  void deadLetterOptionsReportEveryProblem() {
    assertThatThrownBy(
            () ->
                DeadLetterConfig.builder()
                    .topic("")
                    .transactionTimeout(Duration.ZERO)
                    .producerProperty("transactional.id", "x")
                    .build())
        .hasMessageContainingAll(
            "kafka.bootstrap-servers: must be set",
            "kafka.dead-letter.topic: must be set",
            "kafka.dead-letter.transaction-timeout: must be positive",
            "kafka.dead-letter.properties.transactional.id: set by the sink itself");
  }
}
