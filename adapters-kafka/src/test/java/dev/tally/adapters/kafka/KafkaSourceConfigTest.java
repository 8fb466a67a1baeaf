package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class KafkaSourceOptionsTest {

  @Test
  void defaultsFollowTheSpec() {
    KafkaSourceOptions options =
        KafkaSourceOptions.builder().bootstrapServers("127.0.0.1:9092").build();

    assertThat(options.topics()).containsExactly("financial-transactions");
    assertThat(options.startupMode()).isEqualTo(StartupMode.LATEST);
    assertThat(options.outOfOrderness()).isEqualTo(Duration.ofSeconds(5));
    assertThat(options.idleTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(options.maxRecordBytes()).isEqualTo(1024 * 1024);
    assertThat(options.maxFutureSkew()).isEqualTo(Duration.ofHours(1));
    assertThat(options.bounded()).isFalse();
    assertThat(DeadLetterOptions.defaultTopicFor(options.topics().get(0)))
        .isEqualTo("financial-transactions.dlq");
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    KafkaSourceOptions.Builder builder =
        KafkaSourceOptions.builder()
            .topicPattern("(unclosed")
            .groupId(" ")
            .startupMode(StartupMode.TIMESTAMP)
            .outOfOrderness(Duration.ofSeconds(-1))
            .maxRecordBytes(0)
            .clientProperty("group.id", "sneaky")
            .clientProperty("security.protocol", "SASL_SSL");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll(
            "bootstrapServers must be set",
            "topicPattern is no regular expression",
            "groupId must be set",
            "startupTimestamp must be set with startupMode TIMESTAMP",
            "outOfOrderness must not be negative",
            "maxRecordBytes must be positive",
            "client property group.id is set by the source itself")
        .message()
        .doesNotContain("security.protocol");
  }

  @Test
  void topicsAndPatternAreExclusiveAndTheLastOneWins() {
    KafkaSourceOptions options =
        KafkaSourceOptions.builder()
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

    KafkaSourceOptions options =
        KafkaSourceOptions.builder().bootstrapServers("b:1").startupTimestamp(from).build();

    assertThat(options.startupMode()).isEqualTo(StartupMode.TIMESTAMP);
    assertThat(options.startupTimestamp()).isEqualTo(from);
  }

  @Test
  void deadLetterOptionsReportEveryProblem() {
    assertThatThrownBy(
            () ->
                DeadLetterOptions.builder()
                    .topic("")
                    .transactionTimeout(Duration.ZERO)
                    .producerProperty("transactional.id", "x")
                    .build())
        .hasMessageContainingAll(
            "bootstrapServers must be set",
            "topic must be set",
            "transactionTimeout must be positive",
            "producer property transactional.id is set by the sink itself");
  }
}
