package dev.tally.adapters.kafka;

import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.ports.in.TransactionSource;
import dev.tally.ports.in.TransactionStreams;
import java.time.Duration;
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
   * The source the job reads: the connector's, wrapped so that every assigned partition holds the
   * watermark until it is caught up and a bounded one ends after a restore too ({@link
   * TallyKafkaSource}).
   */
  Source<DecodedRecord, ?, ?> source() {
    return new TallyKafkaSource<>(buildSource(), probeSettings());
  }

  /** How a reader's {@link LogEndProbe} reaches and reads the source topics. */
  LogEndProbe.Settings probeSettings() {
    // A question may take up to the idle timeout, so that the answer comes within about twice the
    // timeout, but no less than a second (a broker's round trip under load) nor more than ten.
    long timeout = Math.min(10_000, Math.max(1_000, options.idleTimeout().toMillis()));
    return new LogEndProbe.Settings(
        options.bootstrapServers(),
        options.groupId(),
        options.clientProperties(),
        options.committedFallback() != StartupMode.LATEST,
        decoder(),
        Duration.ofMillis(timeout));
  }

  private TransactionDecoder decoder() {
    return new TransactionDecoder(options.validator(), options.maxRecordBytes());
  }

  KafkaSource<DecodedRecord> buildSource() {
    KafkaSourceBuilder<DecodedRecord> builder =
        KafkaSource.<DecodedRecord>builder()
            .setBootstrapServers(options.bootstrapServers())
            .setGroupId(options.groupId())
            .setClientIdPrefix("tally-" + options.groupId())
            .setStartingOffsets(startingOffsets())
            .setDeserializer(new TransactionDeserializationSchema(decoder()));
    options
        .compiledTopicPattern()
        .ifPresentOrElse(builder::setTopicPattern, () -> builder.setTopics(options.topics()));
    builder.setProperties(ClientProperties.of(options.clientProperties()));
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
    // A generator created on the thread of a CatchUpReader asks it whether a silent partition is
    // caught up; one created elsewhere (no Kafka reader: tests of the strategy alone) cannot ask,
    // and goes idle on silence alone.
    return WatermarkStrategy.<DecodedRecord>forGenerator(
            context -> {
              if (idleTimeout.isZero()) {
                return new AcceptedEventsWatermarks(outOfOrderness);
              }
              ReaderPartitions partitions = ReaderPartitions.current();
              return partitions == null
                  ? new AcceptedEventsWatermarks(
                      outOfOrderness, idleTimeout, context.getInputActivityClock())
                  : new AcceptedEventsWatermarks(
                      outOfOrderness, idleTimeout, context.getInputActivityClock(), partitions);
            })
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
