package dev.tally.adapters.kafka;

import dev.tally.domain.anomaly.Anomaly;
import dev.tally.ports.out.AnomalySink;
import java.util.Properties;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The {@link AnomalySink} port on Flink's {@code KafkaSink}: JSON alerts keyed by user ({@link
 * AnomalySerializationSchema}), in Kafka transactions committed on completed checkpoints by
 * default, or at least once.
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

  KafkaSink<Anomaly> buildSink() {
    DeadLetterConfig connection = options.connection();
    Properties producer = new Properties();
    producer.putAll(connection.producerProperties());
    producer.setProperty(
        "transaction.timeout.ms", Long.toString(connection.transactionTimeout().toMillis()));
    return KafkaSink.<Anomaly>builder()
        .setBootstrapServers(connection.bootstrapServers())
        .setKafkaProducerConfig(producer)
        .setRecordSerializer(new AnomalySerializationSchema(options.topic()))
        .setDeliveryGuarantee(options.delivery().guarantee())
        .setTransactionalIdPrefix(options.transactionalIdPrefix())
        .setTransactionNamingStrategy(
            connection.poolTransactionalIds()
                ? TransactionNamingStrategy.POOLING
                : TransactionNamingStrategy.DEFAULT)
        .build();
  }
}
