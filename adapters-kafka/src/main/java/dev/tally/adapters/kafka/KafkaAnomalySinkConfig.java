package dev.tally.adapters.kafka;

import java.util.Objects;

/**
 * The anomaly topic's settings. The producer reaches the dead-letter topic's cluster with the
 * dead-letter producer's properties and transaction timeout (same cluster, same transaction
 * lifetime rules: {@link TransactionTimeoutCheck}).
 *
 * @param topic the anomaly topic
 * @param delivery exactly once or at least once
 * @param transactionalIdPrefix the prefix of the producer's transactional ids: unique per job
 * @param connection the dead-letter sink, whose cluster, producer properties and transaction
 *     timeout the anomaly producer shares
 */
public record KafkaAnomalySinkConfig(
    String topic,
    AnomalyDelivery delivery,
    String transactionalIdPrefix,
    DeadLetterConfig connection) {

  public KafkaAnomalySinkConfig {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(delivery, "delivery");
    Objects.requireNonNull(transactionalIdPrefix, "transactionalIdPrefix");
    Objects.requireNonNull(connection, "connection");
  }

  /** The default anomaly topic of a source topic: docs/behaviour.md "Anomalies". */
  public static String defaultTopicFor(String sourceTopic) {
    return sourceTopic + ".anomalies";
  }

  /**
   * The transactional-id prefix of a job's anomaly producer: its name plus {@code -anomalies}, so
   * that it never fences the job's dead-letter producer or another job's.
   */
  public static String transactionalIdPrefixFor(String jobName) {
    return jobName + "-anomalies";
  }
}
