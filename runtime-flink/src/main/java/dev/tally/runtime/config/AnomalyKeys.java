package dev.tally.runtime.config;

import dev.tally.adapters.kafka.AnomalyDelivery;
import dev.tally.adapters.kafka.KafkaAnomalySinkConfig;
import dev.tally.adapters.kafka.KafkaSourceConfig;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigReader;
import java.math.BigDecimal;
import java.util.List;

/** The keys of anomaly detection (docs/behaviour.md "Anomalies"); off by default. */
public final class AnomalyKeys {

  /** Whether anomalies are detected and written. */
  public static final ConfigKey<Boolean> ENABLED =
      ConfigKey.bool("anomalies.enabled")
          .defaultValue(false)
          .description(
              "Judge every accepted transaction with a positive amount against its user's 7-day"
                  + " baseline in its currency, and write the anomalous ones to"
                  + " `anomalies.table` and `anomalies.kafka.topic`.");

  /** The fewest baseline transactions a judgement needs. */
  public static final ConfigKey<Integer> MIN_BASELINE =
      ConfigKey.integer("anomalies.min-baseline")
          .defaultValue(20)
          .between(1, Integer.MAX_VALUE)
          .description(
              "A transaction is judged only when its baseline holds at least this many"
                  + " transactions. Part of the restored state's rule.");

  /** The threshold in standard deviations. */
  public static final ConfigKey<String> K =
      ConfigKey.string("anomalies.k")
          .defaultValue("4")
          .check(AnomalyKeys::validK, k -> "must be a decimal ≥ 0 with at most 2 fraction digits")
          .description(
              "Anomalous means more than k population standard deviations above the baseline's"
                  + " mean; a decimal with at most 2 fraction digits. Part of the restored"
                  + " state's rule.");

  /** The anomaly table. */
  public static final ConfigKey<String> TABLE =
      ConfigKey.string("anomalies.table")
          .defaultValue("analytics.spending_anomalies")
          .required()
          .check(
              table -> table.lastIndexOf('.') > 0 && !table.endsWith("."),
              table -> "must be namespace.table: " + table)
          .description(
              "The Iceberg anomaly table, `namespace.table`, in the `iceberg.*` catalog; created"
                  + " when absent, checked when present.");

  /** The anomaly topic. */
  public static final ConfigKey<String> KAFKA_TOPIC =
      ConfigKey.string("anomalies.kafka.topic")
          .defaultDescribed("the first source topic plus `.anomalies`")
          .required()
          .description(
              "Kafka topic of the alerts: JSON keyed by `user_id`, on the source's cluster, with"
                  + " the dead-letter producer's properties and transaction timeout. Created at"
                  + " start when missing (the broker's partitions and replication), checked when"
                  + " present: a compacted topic, one whose `max.message.bytes` is below an"
                  + " alert's bound or whose `min.insync.replicas` exceeds its replicas fails the"
                  + " start.");

  /** How the anomaly topic is written. */
  public static final ConfigKey<AnomalyDelivery> KAFKA_DELIVERY =
      ConfigKey.enumeration("anomalies.kafka.delivery", AnomalyDelivery.class)
          .defaultValue(AnomalyDelivery.EXACTLY_ONCE)
          .required()
          .description(
              "exactly-once: in Kafka transactions committed on completed checkpoints (read with"
                  + " `isolation.level=read_committed`); at-least-once: sent at once, lower"
                  + " latency, repeats possible after a recovery (each alert carries its"
                  + " `transaction_id`).");

  private AnomalyKeys() {}

  /**
   * The anomaly settings.
   *
   * @param enabled whether anomalies are detected
   * @param rule the rule
   * @param tableNamespace the anomaly table's namespace
   * @param tableName the anomaly table's name
   * @param topic the anomaly topic
   * @param delivery how the topic is written
   * @param transactionalIdPrefix the anomaly producer's transactional-id prefix
   * @param continueAfterLostTransactions see {@link
   *     KafkaAnomalySinkConfig#CONTINUE_AFTER_LOST_TRANSACTIONS}
   */
  public record AnomalyConfig(
      boolean enabled,
      AnomalyRule rule,
      String tableNamespace,
      String tableName,
      String topic,
      AnomalyDelivery delivery,
      String transactionalIdPrefix,
      boolean continueAfterLostTransactions) {}

  /** Reads the keys; {@code null} when they have problems, which {@code r} records. */
  static AnomalyConfig read(ConfigReader r, String jobName) {
    boolean enabled = r.get(ENABLED);
    int minBaseline = r.getChecked(MIN_BASELINE);
    String k = r.getChecked(K);
    String table = r.getChecked(TABLE);
    // Already reported under their own keys when invalid; not twice.
    BigDecimal threshold = validK(k) ? new BigDecimal(k.trim()) : BigDecimal.ZERO;
    int dot = table.lastIndexOf('.') > 0 ? table.lastIndexOf('.') : 0;
    List<String> sourceTopics = r.get(KafkaSourceConfig.TOPICS);
    String topic =
        r.get(
            KAFKA_TOPIC,
            KafkaAnomalySinkConfig.defaultTopicFor(
                sourceTopics.isEmpty()
                    ? KafkaSourceConfig.TOPICS.defaultValue().get(0)
                    : sourceTopics.get(0)));
    AnomalyDelivery delivery = r.get(KAFKA_DELIVERY);
    boolean continueAfterLoss = r.get(KafkaAnomalySinkConfig.CONTINUE_AFTER_LOST_TRANSACTIONS);
    return r.build(
        "anomalies.*",
        () ->
            new AnomalyConfig(
                enabled,
                AnomalyRule.of(threshold, Math.max(1, minBaseline)),
                table.substring(0, dot),
                table.substring(dot + 1),
                topic,
                delivery,
                KafkaAnomalySinkConfig.transactionalIdPrefixFor(jobName),
                continueAfterLoss));
  }

  private static boolean validK(String k) {
    try {
      AnomalyRule.of(new BigDecimal(k.trim()), 1);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
