package dev.tally.adapters.kafka;

import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.ports.in.TransactionSource;
import dev.tally.ports.in.TransactionStreams;
import java.time.Duration;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * The {@link TransactionSource} port on Flink's {@code KafkaSource}: decodes inside the source
 * reader, watermarks per Kafka partition over accepted events only, and splits accepted
 * transactions from rejections right after.
 */
final class KafkaTransactionSource implements TransactionSource {

  /** Stable uid of the Kafka source operator: its state holds the partition offsets. */
  static final String SOURCE_UID = "tally-kafka-source";

  /** Stable uid of the stateless router that splits accepted from rejected records. */
  static final String ROUTER_UID = "tally-kafka-decode-router";

  private final KafkaSourceConfig options;

  KafkaTransactionSource(KafkaSourceConfig options) {
    this.options = options;
  }

  @Override
  public TransactionStreams open(StreamExecutionEnvironment env) {
    DataStream<DecodedRecord> decoded =
        env.fromSource(source(), watermarkStrategy(), "Kafka transactions " + describeTopics())
            .uid(SOURCE_UID);
    SingleOutputStreamOperator<SourcedTransaction> accepted =
        decoded.process(new DecodedRecordRouter()).uid(ROUTER_UID).name("Route decoded records");
    return new TransactionStreams(accepted, accepted.getSideOutput(DecodedRecordRouter.REJECTED));
  }

  /**
   * The source the job reads: a bounded one wrapped so that it ends after a restore too ({@link
   * BoundedKafkaSource}).
   */
  Source<DecodedRecord, ?, ?> source() {
    KafkaSource<DecodedRecord> kafka = buildSource();
    return options.bounded() ? new BoundedKafkaSource<>(kafka) : kafka;
  }

  KafkaSource<DecodedRecord> buildSource() {
    KafkaSourceBuilder<DecodedRecord> builder =
        KafkaSource.<DecodedRecord>builder()
            .setBootstrapServers(options.bootstrapServers())
            .setGroupId(options.groupId())
            .setClientIdPrefix("tally-" + options.groupId())
            .setStartingOffsets(startingOffsets())
            .setDeserializer(
                new TransactionDeserializationSchema(
                    new TransactionDecoder(options.validator(), options.maxRecordBytes())));
    options
        .compiledTopicPattern()
        .ifPresentOrElse(builder::setTopicPattern, () -> builder.setTopics(options.topics()));
    Properties client = new Properties();
    client.putAll(options.clientProperties());
    builder.setProperties(client);
    builder.setProperty(
        "partition.discovery.interval.ms",
        Long.toString(
            options.partitionDiscoveryInterval().toMillis() == 0
                ? -1
                : options.partitionDiscoveryInterval().toMillis()));
    if (options.bounded()) {
      builder.setBounded(OffsetsInitializer.latest());
    }
    return builder.build();
  }

  WatermarkStrategy<DecodedRecord> watermarkStrategy() {
    // A local, not the field: the supplier is serialized into the job graph and must not drag this
    // class along.
    Duration outOfOrderness = options.outOfOrderness();
    Duration idleTimeout = options.idleTimeout();
    // Idleness inside the generator, over accepted records only: WatermarkStrategy.withIdleness
    // would count rejected records as activity (AcceptedEventsWatermarks says why that matters).
    return WatermarkStrategy.<DecodedRecord>forGenerator(
            context ->
                idleTimeout.isZero()
                    ? new AcceptedEventsWatermarks(outOfOrderness)
                    : new AcceptedEventsWatermarks(
                        outOfOrderness, idleTimeout, context.getInputActivityClock()))
        .withTimestampAssigner(
            (record, kafkaTimestamp) ->
                record.isAccepted()
                    ? record.accepted().transaction().eventTimeMillis()
                    : kafkaTimestamp);
  }

  // OffsetResetStrategy is deprecated in kafka-clients 4 but is what this connector version's API
  // takes.
  @SuppressWarnings("deprecation")
  private OffsetsInitializer startingOffsets() {
    return switch (options.startupMode()) {
      case EARLIEST -> OffsetsInitializer.earliest();
      case LATEST -> OffsetsInitializer.latest();
      case COMMITTED ->
          OffsetsInitializer.committedOffsets(
              options.committedFallback() == StartupMode.LATEST
                  ? OffsetResetStrategy.LATEST
                  : OffsetResetStrategy.EARLIEST);
      case TIMESTAMP -> OffsetsInitializer.timestamp(options.startupTimestamp().toEpochMilli());
    };
  }

  private String describeTopics() {
    return options.topicPattern() != null
        ? "/" + options.topicPattern() + "/"
        : String.join(",", options.topics());
  }
}
