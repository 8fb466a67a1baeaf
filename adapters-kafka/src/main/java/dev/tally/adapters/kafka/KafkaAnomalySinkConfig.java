package dev.tally.adapters.kafka;

import dev.tally.ports.config.ConfigKey;
import java.util.Objects;

/**
 * The anomaly topic's settings. The producer reaches the dead-letter topic's cluster with the
 * dead-letter producer's properties and transaction timeout (same cluster, same transaction
 * lifetime rules: {@link TransactionTimeoutCheck}).
 *
 * @param topic the anomaly topic
 * @param delivery exactly once or at least once
 * @param transactionalIdPrefix the prefix of the producer's transactional ids: unique per job
 * @param continueAfterLostTransactions whether the job goes on after the broker has lost a
 *     completed checkpoint's alert transaction ({@link LostTransactionGuard}); exactly once only
 * @param connection the dead-letter sink, whose cluster, producer properties and transaction
 *     timeout the anomaly producer shares
 */
public record KafkaAnomalySinkConfig(
    String topic,
    AnomalyDelivery delivery,
    String transactionalIdPrefix,
    boolean continueAfterLostTransactions,
    DeadLetterConfig connection) {

  /**
   * Whether the job goes on after the broker has lost a completed checkpoint's alert transaction:
   * the operator's acknowledgement of the loss, as {@code
   * kafka.dead-letter.continue-after-lost-transactions} is for dead letters.
   */
  public static final ConfigKey<Boolean> CONTINUE_AFTER_LOST_TRANSACTIONS =
      ConfigKey.bool("anomalies.kafka.continue-after-lost-transactions")
          .defaultValue(false)
          .description(
              "With `exactly-once` delivery, when the broker has aborted the alert transaction of"
                  + " a completed checkpoint (its alerts are lost from the topic; the table still"
                  + " has them), go on after counting it in the metric"
                  + " `tally.anomalies.lost-transactions` and logging an ERROR, instead of failing"
                  + " the job without restarts. Set it to resume a job that failed so, then unset"
                  + " it.");

  /** What the sink's committer counts and names: {@link LostTransactionGuard}. */
  static final TransactionalOutput ALERTS =
      new TransactionalOutput(
          "anomaly alerts",
          "anomalies",
          CONTINUE_AFTER_LOST_TRANSACTIONS.name(),
          "job.name: the prefix is the job name plus -anomalies");

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
