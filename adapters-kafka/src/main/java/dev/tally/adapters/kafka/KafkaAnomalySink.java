package dev.tally.adapters.kafka;

import dev.tally.domain.anomaly.Anomaly;
import dev.tally.ports.out.AnomalySink;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The {@link AnomalySink} port on Flink's {@code KafkaSink}: JSON alerts keyed by user ({@link
 * AnomalySerializationSchema}), in Kafka transactions committed on completed checkpoints by
 * default, or at least once.
 *
 * <p>Its committer is the dead-letter sink's ({@link GuardedKafkaSink}): a transaction of a
 * completed checkpoint that the broker aborted before its commit fails the job without restarts and
 * is counted in {@code tally.anomalies.lost-transactions}, instead of the connector's log line
 * alone. Its topic is checked, or created, at start with the dead-letter topic ({@link
 * DeadLetterSizing#sizeFor(DeadLetterConfig, KafkaSourceConfig, java.util.List)}, {@link
 * SinkTopic#alerts}).
 */
final class KafkaAnomalySink implements AnomalySink {

  /** Stable uid of the anomaly topic's sink: its state holds the pending Kafka transactions. */
  static final String SINK_UID = "tally-anomaly-kafka-sink";

  private final KafkaAnomalySinkConfig options;

  KafkaAnomalySink(KafkaAnomalySinkConfig options) {
    this.options = options;
  }

  @Override
  public void attach(DataStream<Anomaly> anomalies) {
    anomalies.sinkTo(buildSink()).uid(SINK_UID).name("Anomalies to " + options.topic());
  }

  GuardedKafkaSink<Anomaly, Anomaly> buildSink() {
    return new GuardedKafkaSink<>(
        buildKafkaSink(),
        KafkaAnomalySink::unstamped,
        KafkaAnomalySinkConfig.ALERTS,
        options.continueAfterLostTransactions());
  }

  /**
   * Alerts carry no checkpoint stamp: unlike the dead-letter topic, nothing reads the anomaly topic
   * back at a restore (docs/exactly-once.md "Restores that cannot be exact fail at start").
   */
  private static Anomaly unstamped(Anomaly anomaly, long afterCheckpoint) {
    return anomaly;
  }

  private KafkaSink<Anomaly> buildKafkaSink() {
    return KafkaDeadLetterSink.<Anomaly>kafkaSinkOn(
            options.connection(), options.transactionalIdPrefix())
        .setRecordSerializer(new AnomalySerializationSchema(options.topic()))
        .setDeliveryGuarantee(options.delivery().guarantee())
        .build();
  }
}
