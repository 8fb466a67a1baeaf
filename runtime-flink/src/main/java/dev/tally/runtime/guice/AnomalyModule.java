package dev.tally.runtime.guice;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.OptionalBinder;
import dev.tally.adapters.iceberg.IcebergAnomalySinkModule;
import dev.tally.adapters.iceberg.IcebergSinkConfig;
import dev.tally.adapters.kafka.DeadLetterConfig;
import dev.tally.adapters.kafka.KafkaAnomalySinkConfig;
import dev.tally.adapters.kafka.KafkaAnomalySinkModule;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.runtime.config.AnomalyKeys.AnomalyConfig;
import java.util.Objects;

/**
 * Guice: anomaly detection (docs/behaviour.md "Anomalies"), installed only when it is on: the rule
 * the aggregator judges by, and its two sinks, the Iceberg table and the Kafka topic.
 */
public final class AnomalyModule extends AbstractModule {

  private final AnomalyConfig anomalies;
  private final IcebergSinkConfig iceberg;
  private final DeadLetterConfig deadLetter;

  /**
   * @param anomalies the rule, table and topic
   * @param iceberg the spending sink, whose catalog and storage the table shares
   * @param deadLetter the dead-letter sink, whose cluster and producer the topic shares
   */
  public AnomalyModule(
      AnomalyConfig anomalies, IcebergSinkConfig iceberg, DeadLetterConfig deadLetter) {
    this.anomalies = Objects.requireNonNull(anomalies, "anomalies");
    this.iceberg = Objects.requireNonNull(iceberg, "iceberg");
    this.deadLetter = Objects.requireNonNull(deadLetter, "deadLetter");
  }

  @Override
  protected void configure() {
    OptionalBinder.newOptionalBinder(binder(), AnomalyRule.class)
        .setBinding()
        .toInstance(anomalies.rule());
    install(
        new IcebergAnomalySinkModule(iceberg, anomalies.tableNamespace(), anomalies.tableName()));
    install(
        new KafkaAnomalySinkModule(
            new KafkaAnomalySinkConfig(
                anomalies.topic(),
                anomalies.delivery(),
                anomalies.transactionalIdPrefix(),
                anomalies.continueAfterLostTransactions(),
                deadLetter)));
  }
}
