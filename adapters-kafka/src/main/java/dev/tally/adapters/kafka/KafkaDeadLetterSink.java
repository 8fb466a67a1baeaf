package dev.tally.adapters.kafka;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.ports.out.RejectedRecordSink;
import java.util.Properties;
import java.util.UUID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The {@link RejectedRecordSink} port on Flink's transactional {@code KafkaSink}: exactly-once dead
 * letters, with a committer that fails the job when the broker has lost a completed checkpoint's
 * transaction ({@link LostTransactionGuard}).
 *
 * <p>Its producer properties come sized for the source topics by {@link DeadLetterSizing#sizeFor},
 * which the job's start runs; each dead letter's size is decided against them and the topic's limit
 * before it is sent ({@link DeadLetterSerializationSchema}).
 */
final class KafkaDeadLetterSink implements RejectedRecordSink {

  /** Stable uid of the dead-letter sink: its state holds the pending Kafka transactions. */
  static final String SINK_UID = "tally-dead-letter-sink";

  /** Stable uid of the operator in front of it: its state holds the lineage id. */
  static final String LINEAGE_UID = "tally-dead-letter-lineage";

  private final DeadLetterConfig options;

  KafkaDeadLetterSink(DeadLetterConfig options) {
    this.options = options;
  }

  @Override
  public void attach(DataStream<RejectedRecord> rejected) {
    // Same parallelism as the sink, so the two are chained; the writer counts checkpoints itself.
    rejected
        .transform(
            "Dead-letter lineage",
            TypeInformation.of(LineagedRejection.class),
            new DeadLetterLineage(
                options.topic(),
                DeadLetterSizing.adminProperties(options),
                UUID.randomUUID().toString()))
        .uid(LINEAGE_UID)
        .sinkTo(buildSink())
        .uid(SINK_UID)
        .name("Dead letters to " + options.topic());
  }

  GuardedKafkaSink<LineagedRejection, StampedRejection> buildSink() {
    return new GuardedKafkaSink<>(
        buildKafkaSink(),
        StampedRejection::new,
        TransactionalOutput.DEAD_LETTERS,
        options.continueAfterLostTransactions());
  }

  private KafkaSink<StampedRejection> buildKafkaSink() {
    return KafkaDeadLetterSink.<StampedRejection>kafkaSinkOn(
            options, options.transactionalIdPrefix())
        .setRecordSerializer(
            new DeadLetterSerializationSchema(
                options.topic(),
                DeadLetterSizing.producerLimit(options.producerProperties()),
                DeadLetterSizing.adminProperties(options)))
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .build();
  }

  /**
   * A {@code KafkaSink} builder on the dead-letter producer's cluster, properties, transaction
   * timeout and naming strategy, which the anomaly sink shares ({@link KafkaAnomalySink}); the
   * caller sets the serializer and the delivery guarantee.
   *
   * @param connection the dead-letter sink's settings
   * @param transactionalIdPrefix the prefix of the sink's own transactional ids
   */
  static <T> KafkaSinkBuilder<T> kafkaSinkOn(
      DeadLetterConfig connection, String transactionalIdPrefix) {
    Properties producer = ClientProperties.of(connection.producerProperties());
    producer.setProperty(
        "transaction.timeout.ms", Long.toString(connection.transactionTimeout().toMillis()));
    return KafkaSink.<T>builder()
        .setBootstrapServers(connection.bootstrapServers())
        .setKafkaProducerConfig(producer)
        .setTransactionalIdPrefix(transactionalIdPrefix)
        .setTransactionNamingStrategy(
            connection.poolTransactionalIds()
                ? TransactionNamingStrategy.POOLING
                : TransactionNamingStrategy.DEFAULT);
  }
}
