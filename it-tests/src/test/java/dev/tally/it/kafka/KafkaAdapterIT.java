package dev.tally.it.kafka;

import static dev.tally.domain.fixtures.TransactionJson.aTransactionJson;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Stage;
import dev.tally.adapters.kafka.DeadLetterConfig;
import dev.tally.adapters.kafka.DeadLetterHeaders;
import dev.tally.adapters.kafka.DeadLetterSizing;
import dev.tally.adapters.kafka.KafkaDeadLetterModule;
import dev.tally.adapters.kafka.KafkaSourceConfig;
import dev.tally.adapters.kafka.KafkaSourceModule;
import dev.tally.adapters.kafka.StartupMode;
import dev.tally.adapters.kafka.TransactionTimeoutCheck;
import dev.tally.domain.fixtures.TransactionJson;
import dev.tally.domain.fixtures.Transactions;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.transaction.TransactionField;
import dev.tally.it.support.CommittedRecords;
import dev.tally.ports.in.TransactionSource;
import dev.tally.ports.in.TransactionStreams;
import dev.tally.ports.out.RejectedRecordSink;
import dev.tally.stack.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka adapter against a real broker: the source reads several partitions with per-partition
 * watermarks, a silent partition goes idle instead of holding windows back, and every bad record
 * lands in the dead-letter topic exactly once, visible to {@code read_committed} consumers.
 */
class KafkaAdapterIT {

  private static final int PARTITIONS = 3;
  // In the past: the broker refuses record timestamps more than an hour ahead of its clock.
  private static final Instant HOUR = Instant.parse("2026-01-15T10:00:00Z");

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir static Path workDir;
  private static KafkaBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = KafkaBroker.start(workDir.resolve("kafka"));
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  /** One record to produce, with the partition and record timestamp chosen by the test. */
  private record Input(int partition, Instant recordTime, byte[] key, byte[] value) {}

  private static Input valid(int partition, Transaction tx) {
    return new Input(
        partition,
        tx.eventTime().plusSeconds(1),
        tx.userId().getBytes(StandardCharsets.UTF_8),
        TransactionJson.of(tx).toBytes());
  }

  private static Input bad(int partition, Instant recordTime, byte[] value) {
    return new Input(
        partition, recordTime, ("bad-" + partition).getBytes(StandardCharsets.UTF_8), value);
  }

  @Test
  // Flink's CloseableIterator.close() declares Exception; the test method throws it anyway.
  @SuppressWarnings("try")
  // Without idleness the window never fires and hasNext() blocks: fail instead of hanging the
  // build.
  @Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void readsAllPartitionsFiresWindowsDespiteASilentPartitionAndDeadLettersEveryBadRecordOnce()
      throws Exception {
    String topic = "tx-" + UUID.randomUUID();
    String dlq = DeadLetterConfig.defaultTopicFor(topic);
    broker.createTopic(topic, PARTITIONS, Map.of("retention.ms", "-1"));
    // The dead-letter topic is the sink's to create, sized for the source topic.

    List<Input> inputs = new ArrayList<>();
    // Window [10:00, 11:00): alice in EUR on partitions 0, 1 and 2; bob in USD on partition 1.
    inputs.add(
        valid(
            0,
            Transactions.aTransaction()
                .user("alice")
                .currency("EUR")
                .amount(1_000)
                .at(HOUR.plusSeconds(60))
                .build()));
    inputs.add(
        valid(
            1,
            Transactions.aTransaction()
                .user("alice")
                .currency("EUR")
                .amount(2_500)
                .at(HOUR.plusSeconds(1_800))
                .build()));
    inputs.add(
        valid(
            2,
            Transactions.aTransaction()
                .user("alice")
                .currency("EUR")
                .amount(-300)
                .at(HOUR.plusSeconds(5))
                .build()));
    inputs.add(
        valid(
            1,
            Transactions.aTransaction()
                .user("bob")
                .currency("USD")
                .amount(777)
                .at(HOUR.plusSeconds(3_599))
                .build()));
    // Bad records of every decoder reason, spread over the partitions.
    Instant now = HOUR.plusSeconds(120);
    inputs.add(bad(0, now, "{not json".getBytes(StandardCharsets.UTF_8)));
    inputs.add(bad(1, now, aTransactionJson().without(TransactionField.USER_ID).toBytes()));
    inputs.add(
        bad(2, now, aTransactionJson().raw(TransactionField.AMOUNT_CENTS, "12.5").toBytes()));
    inputs.add(
        bad(
            0,
            now,
            aTransactionJson()
                .text(TransactionField.EVENT_TIMESTAMP, "2026-01-15T12:00:00.001Z")
                .toBytes()));
    inputs.add(bad(1, now, new byte[] {(byte) 0xC3, 0x28}));
    // Event time moves past the window end (+ the 5 s bound) on partitions 0 and 1 only; partition
    // 2 stays silent
    // at 10:00:05, so only idleness lets the window fire.
    inputs.add(
        valid(
            0,
            Transactions.aTransaction()
                .user("carol")
                .currency("GBP")
                .amount(1)
                .at(HOUR.plusSeconds(3_700))
                .build()));
    inputs.add(
        valid(
            1,
            Transactions.aTransaction()
                .user("carol")
                .currency("GBP")
                .amount(1)
                .at(HOUR.plusSeconds(3_700))
                .build()));
    produce(topic, inputs);

    StreamExecutionEnvironment env = environment();
    KafkaSourceConfig source =
        KafkaSourceConfig.builder()
            .bootstrapServers(broker.bootstrapServers())
            .topics(List.of(topic))
            .groupId("it-" + topic)
            .startupMode(StartupMode.EARLIEST)
            .idleTimeout(Duration.ofSeconds(2))
            .build();
    // As the job's start does: sized for the source topic, the dead-letter topic created.
    DeadLetterConfig deadLetterConfig =
        DeadLetterSizing.sizeFor(
            DeadLetterConfig.builder()
                .bootstrapServers(broker.bootstrapServers())
                .topic(dlq)
                .transactionalIdPrefix("it-" + topic)
                .transactionTimeout(Duration.ofMinutes(1))
                .build(),
            source);
    Injector injector =
        Guice.createInjector(
            Stage.PRODUCTION,
            new KafkaSourceModule(source),
            new KafkaDeadLetterModule(deadLetterConfig));
    TransactionStreams streams = injector.getInstance(TransactionSource.class).open(env);
    injector.getInstance(RejectedRecordSink.class).attach(streams.rejected());
    DataStream<String> windows = hourlyTotals(streams.accepted());

    Map<String, String> fired = new HashMap<>();
    try (CloseableIterator<String> results = windows.executeAndCollect("kafka-adapter-it")) {
      while (fired.size() < 2 && results.hasNext()) {
        String row = results.next();
        fired.put(row.substring(0, row.indexOf('@')), row);
      }
      // Dead letters become visible once a checkpoint commits their Kafka transaction.
      List<ConsumerRecord<byte[], byte[]>> deadLetters =
          CommittedRecords.read(broker.bootstrapServers(), dlq, 5);

      assertThat(fired)
          .containsEntry("alice/EUR", "alice/EUR@2026-01-15T10:00:00Z sum=3200 count=3")
          .containsEntry("bob/USD", "bob/USD@2026-01-15T10:00:00Z sum=777 count=1");
      assertThat(deadLetters).hasSize(5);
      assertThat(deadLetters)
          .extracting(r -> CommittedRecords.header(r, DeadLetterHeaders.REASON))
          .containsExactlyInAnyOrder(
              RejectionReason.MALFORMED.name(),
              RejectionReason.MISSING_FIELD.name(),
              RejectionReason.INVALID_FIELD.name(),
              RejectionReason.FUTURE_TIMESTAMP.name(),
              RejectionReason.MALFORMED.name());
      assertThat(deadLetters)
          .extracting(
              r ->
                  CommittedRecords.header(r, DeadLetterHeaders.SOURCE_PARTITION)
                      + "@"
                      + CommittedRecords.header(r, DeadLetterHeaders.SOURCE_OFFSET))
          .doesNotHaveDuplicates();
      for (ConsumerRecord<byte[], byte[]> deadLetter : deadLetters) {
        Input original = findOriginal(inputs, deadLetter);
        assertThat(deadLetter.key()).isEqualTo(original.key());
        assertThat(deadLetter.value()).isEqualTo(original.value());
        assertThat(CommittedRecords.header(deadLetter, DeadLetterHeaders.SOURCE_TOPIC))
            .isEqualTo(topic);
        assertThat(CommittedRecords.header(deadLetter, DeadLetterHeaders.SOURCE_TIMESTAMP))
            .isEqualTo(Long.toString(original.recordTime().toEpochMilli()));
        assertThat(CommittedRecords.header(deadLetter, DeadLetterHeaders.MESSAGE)).isNotBlank();
      }
    }
  }

  @Test
  void theBrokerMaximumTransactionTimeoutIsReadForTheStartupCheck() throws Exception {
    Properties admin = new Properties();
    admin.put("bootstrap.servers", broker.bootstrapServers());
    try (Admin client = Admin.create(admin)) {
      Duration maximum = TransactionTimeoutCheck.brokerMaximum(client, Duration.ofSeconds(30));

      // The local broker raises the default 15 minutes to an hour, as Flink's docs advise.
      assertThat(maximum).isEqualTo(Duration.ofHours(1));
      assertThat(TransactionTimeoutCheck.brokerProblems(Duration.ofHours(2), maximum))
          .singleElement()
          .asString()
          .contains("PT2H exceeds the broker's transaction.max.timeout.ms of PT1H");
    }
  }

  private static StreamExecutionEnvironment environment() {
    Configuration config = new Configuration();
    config.set(PipelineOptions.GENERIC_TYPES, false);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(2);
    env.enableCheckpointing(500);
    return env;
  }

  /** A plain event-time window per user and currency: enough to show when windows fire. */
  private static DataStream<String> hourlyTotals(DataStream<SourcedTransaction> accepted) {
    return accepted
        .map(
            s ->
                Tuple2.of(
                    s.transaction().userId() + "/" + s.transaction().currency(),
                    s.transaction().amountCents()))
        .returns(
            org.apache.flink.api.common.typeinfo.Types.TUPLE(
                org.apache.flink.api.common.typeinfo.Types.STRING,
                org.apache.flink.api.common.typeinfo.Types.LONG))
        .keyBy(t -> t.f0)
        .window(TumblingEventTimeWindows.of(Duration.ofHours(1)))
        .aggregate(new SumAndCount(), new Describe());
  }

  private static final class SumAndCount
      implements AggregateFunction<Tuple2<String, Long>, Tuple2<Long, Long>, Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;

    @Override
    public Tuple2<Long, Long> createAccumulator() {
      return Tuple2.of(0L, 0L);
    }

    @Override
    public Tuple2<Long, Long> add(Tuple2<String, Long> value, Tuple2<Long, Long> acc) {
      return Tuple2.of(acc.f0 + value.f1, acc.f1 + 1);
    }

    @Override
    public Tuple2<Long, Long> getResult(Tuple2<Long, Long> acc) {
      return acc;
    }

    @Override
    public Tuple2<Long, Long> merge(Tuple2<Long, Long> a, Tuple2<Long, Long> b) {
      return Tuple2.of(a.f0 + b.f0, a.f1 + b.f1);
    }
  }

  private static final class Describe
      extends ProcessWindowFunction<Tuple2<Long, Long>, String, String, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(
        String key, Context context, Iterable<Tuple2<Long, Long>> totals, Collector<String> out) {
      Tuple2<Long, Long> total = totals.iterator().next();
      out.collect(
          key
              + "@"
              + Instant.ofEpochMilli(context.window().getStart())
              + " sum="
              + total.f0
              + " count="
              + total.f1);
    }
  }

  private static void produce(String topic, List<Input> inputs) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (Input input : inputs) {
        producer
            .send(
                new ProducerRecord<>(
                    topic,
                    input.partition(),
                    input.recordTime().toEpochMilli(),
                    input.key(),
                    input.value()))
            .get();
      }
    }
  }

  private static Input findOriginal(List<Input> inputs, ConsumerRecord<byte[], byte[]> deadLetter) {
    return inputs.stream()
        .filter(i -> java.util.Arrays.equals(i.value(), deadLetter.value()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("dead letter matches no input record"));
  }
}
