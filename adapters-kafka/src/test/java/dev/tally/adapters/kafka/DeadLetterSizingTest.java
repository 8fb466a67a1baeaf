package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeadLetterSizingTest {

  private static final long TWO_MIB = 2L * 1024 * 1024;

  private static DeadLetterSizing.Limits source(long limit) {
    return new DeadLetterSizing.Limits(limit, "topic txs");
  }

  /** An existing topic that can work but for its {@code max.message.bytes}. */
  private static SinkTopics.Existing topic(long maxMessageBytes) {
    return new SinkTopics.Existing(maxMessageBytes, "delete", 1, 1);
  }

  @Test
  void withNothingSetTallySizesTheProducerAndTheTopicItCreates() {
    DeadLetterSizing.Plan plan = DeadLetterSizing.plan(source(TWO_MIB), "txs.dlq", Map.of());

    assertThat(plan.problems()).isEmpty();
    assertThat(plan.required()).isEqualTo(TWO_MIB + DeadLetterRecordSize.HEADROOM);
    assertThat(plan.producerOverrides())
        .containsEntry("max.request.size", Long.toString(TWO_MIB + 8_192))
        .containsEntry("buffer.memory", Long.toString(32L * 1024 * 1024));
    assertThat(plan.deadLetterTopic().topic()).isEqualTo("txs.dlq");
    assertThat(plan.deadLetterTopic().key()).isEqualTo("kafka.dead-letter.topic");
    assertThat(plan.deadLetterTopic().maxMessageBytes()).isEqualTo(plan.required());
    assertThat(plan.producerLimit()).isEqualTo(plan.required());
  }

  @Test
  void aSourceLargerThanTheDefaultBufferRaisesTheBufferToo() {
    long huge = 64L * 1024 * 1024;
    DeadLetterSizing.Plan plan = DeadLetterSizing.plan(source(huge), "txs.dlq", Map.of());

    assertThat(plan.producerOverrides())
        .containsEntry("buffer.memory", Long.toString(huge + 8_192))
        .containsEntry("max.request.size", Long.toString(huge + 8_192));
  }

  @Test
  void settingsGivenLargeEnoughAreKeptAndAnExistingTopicLargeEnoughIsUsed() {
    DeadLetterSizing.Plan plan =
        DeadLetterSizing.plan(
            source(1_048_588),
            "txs.dlq",
            Map.of("max.request.size", "3000000", "buffer.memory", "16777216"));

    assertThat(plan.problems()).isEmpty();
    assertThat(plan.producerOverrides()).isEmpty();
    assertThat(SinkTopics.problems(plan.deadLetterTopic(), topic(4_000_000))).isEmpty();
    assertThat(plan.producerLimit()).isEqualTo(3_000_000);
  }

  @Test
  void everySettingTooSmallIsReportedAtOnceNamingItsKey() {
    DeadLetterSizing.Plan plan =
        DeadLetterSizing.plan(
            source(TWO_MIB),
            "txs.dlq",
            Map.of("max.request.size", "1048576", "buffer.memory", "lots"));
    List<String> problems = new ArrayList<>(plan.problems());
    problems.addAll(SinkTopics.problems(plan.deadLetterTopic(), topic(1_048_588)));

    assertThat(problems)
        .hasSize(3)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith(
                        "kafka.properties.max.request.size or"
                            + " kafka.dead-letter.properties.max.request.size: 1048576 is too"
                            + " small")
                    .contains("needs 2105344 bytes")
                    .contains("max.message.bytes 2097152 of topic txs"))
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("kafka.properties.buffer.memory or")
                    .contains("no number of bytes: \"lots\""))
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith(
                        "kafka.dead-letter.topic: the topic txs.dlq has max.message.bytes=1048588")
                    .contains("at least 2105344"));
  }

  @Test
  void aDeadLetterTopicAsLargeAsTheSourceIsTooSmallForTheHeaders() {
    DeadLetterSizing.Plan plan = DeadLetterSizing.plan(source(1_048_588), "txs.dlq", Map.of());

    assertThat(plan.problems()).isEmpty();
    assertThat(SinkTopics.problems(plan.deadLetterTopic(), topic(1_048_588)))
        .singleElement()
        .asString()
        .startsWith("kafka.dead-letter.topic:");
  }

  @Test
  void theProducersLimitIsTheSmallerOfRequestSizeAndBuffer() {
    assertThat(DeadLetterSizing.producerLimit(Map.of())).isEqualTo(1_048_576);
    assertThat(DeadLetterSizing.producerLimit(Map.of("max.request.size", "2105344")))
        .isEqualTo(2_105_344);
    assertThat(
            DeadLetterSizing.producerLimit(
                Map.of("max.request.size", "99999999", "buffer.memory", "4000000")))
        .isEqualTo(4_000_000);
  }
}
