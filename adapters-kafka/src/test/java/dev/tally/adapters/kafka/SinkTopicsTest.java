package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.anomaly.Anomaly;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class SinkTopicsTest {

  private static final SinkTopic ALERTS =
      SinkTopic.alerts("anomalies.kafka.topic", "txs.anomalies");

  @Test
  void aTopicThatCanTakeTheAlertsHasNoProblem() {
    assertThat(SinkTopics.problems(ALERTS, new SinkTopics.Existing(1_048_588, "delete", 2, 3)))
        .isEmpty();
  }

  @Test
  void everyReasonATopicCannotWorkIsReportedAtOnceNamingItsKey() {
    assertThat(SinkTopics.problems(ALERTS, new SinkTopics.Existing(1_000, "compact,delete", 2, 1)))
        .hasSize(3)
        .allSatisfy(p -> assertThat(p).startsWith("anomalies.kafka.topic: the topic txs.anomalies"))
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains("max.message.bytes=1000, less than the 4096 bytes an anomaly alert")
                    .contains("at least 4096"))
        .anySatisfy(p -> assertThat(p).contains("cleanup.policy=compact,delete"))
        .anySatisfy(p -> assertThat(p).contains("min.insync.replicas=2 but only 1 replicas"));
  }

  @Test
  void theLargestAlertFitsTheBoundItsTopicIsSizedFor() {
    // 128 UTF-16 units each: a 3-byte character for the key and value, a control character that
    // JSON escapes to 6 bytes for the id; the longest numbers a long and the decimals can take.
    String user = "€".repeat(128);
    String id = "\u0001".repeat(128);
    BigDecimal extreme = new BigDecimal(Long.MIN_VALUE).movePointLeft(4).setScale(4);
    Anomaly largest =
        new Anomaly(
            id,
            user,
            "XTS",
            Long.MIN_VALUE,
            Long.MIN_VALUE,
            Long.MIN_VALUE,
            extreme,
            extreme,
            new BigDecimal("-1.234567890123456E-999999"));

    long bound =
        DeadLetterRecordSize.upperBound(
            user.getBytes(StandardCharsets.UTF_8),
            AnomalySerializationSchema.json(largest),
            new Header[0]);

    assertThat(bound).isLessThanOrEqualTo(SinkTopic.ALERT_MAX_BYTES);
  }
}
