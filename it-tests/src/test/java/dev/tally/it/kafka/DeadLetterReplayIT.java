package dev.tally.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.adapters.kafka.ReplayHeaders;
import dev.tally.it.oracle.SpendingKey;
import dev.tally.it.oracle.SpendingTableReader;
import dev.tally.it.oracle.Totals;
import dev.tally.runtime.TallyMain;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyJobLauncher;
import dev.tally.stack.TallyYaml;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code TallyMain replay} against the real stack: a producer with its clock two hours behind
 * writes transactions the job rejects as {@code FUTURE_TIMESTAMP}; once "fixed", an operator
 * replays the dead letters of that reason into the topic the job reads. The copies carry the
 * original bytes, a second replay of the same selection copies nothing (idempotent), the {@code
 * MALFORMED} dead letters stay where they are, and the job, run again over the topic, counts every
 * transaction exactly once.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DeadLetterReplayIT {
  /**
   * A dead-letter topic created ahead of the job must hold the source topic's largest record with
   * the dead-letter headers, or the job refuses to start (docs/behaviour.md "Record size").
   */
  private static final Map<String, String> DEAD_LETTER_TOPIC_CONFIG =
      Map.of("retention.ms", "-1", "max.message.bytes", String.valueOf(2 * 1024 * 1024));

  private static final String TOPIC = "replay-transactions";
  private static final String DLQ = TOPIC + ".dlq";
  private static final int VALID = 40;
  private static final int SKEWED = 6;
  private static final int MALFORMED = 2;
  private static final TableIdentifier REPLAYED_TABLE =
      TableIdentifier.of("analytics", "spending_after_replay");

  @TempDir static Path work;

  private static LocalStack stack;
  private static Path config;
  private static final Map<String, byte[]> skewedValues = new HashMap<>();
  private static final Map<SpendingKey, Totals> expected = new HashMap<>();

  @BeforeAll
  static void rejectTheSkewedProducersRecords() throws Exception {
    stack = LocalStack.start(work.resolve("stack"));
    stack.kafka().createTopic(TOPIC, 2, Map.of("retention.ms", "-1"));
    stack.kafka().createTopic(DLQ, 1, DEAD_LETTER_TOPIC_CONFIG);
    stack.kafka().createTopic(DLQ + "-2", 1, DEAD_LETTER_TOPIC_CONFIG);
    produce();
    config =
        TallyYaml.builder(stack.tallyServices())
            .topic(TOPIC)
            .deadLetterTopic(DLQ)
            .bounded(true)
            .checkpointDirectory(work.resolve("checkpoints"))
            .checkpointInterval(Duration.ofSeconds(2))
            .parallelism(2)
            .writeTo(work.resolve("tally.yaml"));
    runBoundedJob("first", List.of());
    assertThat(deadLetterReasons(DLQ))
        .containsEntry("FUTURE_TIMESTAMP", (long) SKEWED)
        .containsEntry("MALFORMED", (long) MALFORMED);
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  @Order(1)
  void aDryRunPrintsTheSelectionAndWritesNothing() throws Exception {
    String out = replay("--reason", "FUTURE_TIMESTAMP", "--dry-run");

    assertThat(out.lines().filter(l -> l.startsWith("would replay " + DLQ + ":0:")))
        .hasSize(SKEWED)
        .allMatch(
            l ->
                l.contains(" FUTURE_TIMESTAMP (record " + TOPIC + ":")
                    && l.endsWith(" to " + TOPIC));
    assertThat(out).contains("Would replay " + SKEWED + " dead letter(s) of " + DLQ);
    assertThat(replayedCopies()).isEmpty();
  }

  @Test
  @Order(2)
  void aReplayCopiesTheDeadLettersOfOneReasonWithTheirOriginalBytes() throws Exception {
    String out = replay("--reason", "FUTURE_TIMESTAMP");

    assertThat(out.lines().filter(l -> l.startsWith("replayed "))).hasSize(SKEWED);
    List<ConsumerRecord<byte[], byte[]>> copies = replayedCopies();
    assertThat(copies).hasSize(SKEWED);
    for (ConsumerRecord<byte[], byte[]> copy : copies) {
      String key = new String(copy.key(), StandardCharsets.UTF_8);
      assertThat(skewedValues).containsKey(key);
      assertThat(copy.value()).isEqualTo(skewedValues.get(key));
      assertThat(header(copy, ReplayHeaders.REASON)).isEqualTo("FUTURE_TIMESTAMP");
      assertThat(header(copy, ReplayHeaders.SELECTION)).isEqualTo("reason=FUTURE_TIMESTAMP");
      assertThat(header(copy, ReplayHeaders.DEAD_LETTER)).startsWith(DLQ + ":0:");
      assertThat(header(copy, ReplayHeaders.SOURCE)).startsWith(TOPIC + ":");
    }
    assertThat(copies.stream().map(c -> header(c, ReplayHeaders.DEAD_LETTER)).distinct())
        .hasSize(SKEWED);
  }

  @Test
  @Order(3)
  void theSameReplayAgainCopiesNothing() throws Exception {
    String out = replay("--reason", "FUTURE_TIMESTAMP");

    assertThat(out.lines().filter(l -> l.startsWith("replayed "))).isEmpty();
    assertThat(out.lines().filter(l -> l.startsWith("already replayed "))).hasSize(SKEWED);
    assertThat(out).contains("Replayed 0 dead letter(s)", SKEWED + " replayed before, left out");
    assertThat(replayedCopies()).hasSize(SKEWED);
  }

  @Test
  @Order(4)
  void theJobCountsEveryReplayedTransactionOnce() throws Exception {
    runBoundedJob(
        "second",
        List.of(
            "kafka.source.group-id=replay-second",
            "kafka.dead-letter.topic=" + DLQ + "-2",
            "kafka.dead-letter.transactional-id-prefix=replay-second-dlq",
            "iceberg.table=" + REPLAYED_TABLE.name()));

    try (RESTCatalog catalog = new RESTCatalog()) {
      catalog.initialize("reader", stack.catalog().clientProperties());
      SpendingTableReader.Contents table = SpendingTableReader.read(catalog, REPLAYED_TABLE);
      assertThat(table.duplicateKeys()).isEmpty();
      assertThat(table.rows()).isEqualTo(expected);
    }
    // The originals are still in the topic and still rejected; no copy is.
    assertThat(deadLetterReasons(DLQ + "-2"))
        .containsEntry("FUTURE_TIMESTAMP", (long) SKEWED)
        .containsEntry("MALFORMED", (long) MALFORMED)
        .hasSize(2);
  }

  private static String replay(String... selection) throws Exception {
    List<String> args = new ArrayList<>(List.of("replay", "--config", config.toString()));
    args.addAll(List.of(selection));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        TallyMain.run(
            args.toArray(String[]::new),
            System::getenv,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  /**
   * Transactions of one hour three hours ago, valid ones and ones whose Kafka timestamp is two
   * hours behind their event time (a producer with a wrong clock); and records that are no JSON.
   */
  private static void produce() throws Exception {
    Instant base = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(3));
    Instant window = base;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(clientProperties())) {
      for (int i = 0; i < VALID + SKEWED; i++) {
        String user = "user-" + (i % 4);
        long amount = 100 + i;
        Instant eventTime = base.plusSeconds(60 + i);
        String id = "tx-" + i;
        byte[] value =
            """
            {"transaction_id":"%s","user_id":"%s","amount_cents":%d,"currency":"EUR",\
            "event_timestamp":"%s"}"""
                .formatted(id, user, amount, eventTime)
                .getBytes(StandardCharsets.UTF_8);
        boolean skewed = i >= VALID;
        Long timestamp = skewed ? eventTime.minus(Duration.ofHours(2)).toEpochMilli() : null;
        producer.send(
            new ProducerRecord<>(
                TOPIC, null, timestamp, id.getBytes(StandardCharsets.UTF_8), value));
        if (skewed) {
          skewedValues.put(id, value);
        }
        expected.merge(
            new SpendingKey(user, "EUR", window),
            new Totals(amount, 1),
            (a, b) -> new Totals(a.sum() + b.sum(), a.count() + b.count()));
      }
      for (int i = 0; i < MALFORMED; i++) {
        producer.send(
            new ProducerRecord<>(
                TOPIC,
                ("bad-" + i).getBytes(StandardCharsets.UTF_8),
                "{oops".getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
  }

  private static void runBoundedJob(String name, List<String> overrides) throws Exception {
    Path log = work.resolve(name + "-job.log");
    Process job =
        TallyJobLauncher.of(config)
            .overrides(overrides)
            .locally(
                Path.of(System.getProperty("tally.job.jar")),
                Path.of(System.getProperty("tally.flink.lib")))
            .maxHeap("1g")
            .webPort(dev.tally.stack.LoopbackPorts.freePort())
            .metricsPort(0)
            .temporaryDirectory(work.resolve(name + "-tmp"))
            .environment(stack.objectStore().awsClientEnvironment())
            .process(log)
            .start();
    boolean ended = job.waitFor(10, TimeUnit.MINUTES);
    if (!ended) {
      job.destroyForcibly().waitFor();
    }
    assertThat(ended && job.exitValue() == 0)
        .as("the bounded job ends with 0; its log: %s\n%s", log, tail(log))
        .isTrue();
  }

  private static String tail(Path log) throws Exception {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  /** The committed records of the source topic that carry a replay header. */
  private static List<ConsumerRecord<byte[], byte[]>> replayedCopies() {
    List<ConsumerRecord<byte[], byte[]>> copies = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record : readAll(TOPIC)) {
      if (record.headers().lastHeader(ReplayHeaders.DEAD_LETTER) != null) {
        copies.add(record);
      }
    }
    return copies;
  }

  private static Map<String, Long> deadLetterReasons(String topic) {
    Map<String, Long> reasons = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> record : readAll(topic)) {
      reasons.merge(header(record, "tally.reason"), 1L, Long::sum);
    }
    return reasons;
  }

  private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
    Properties props = clientProperties();
    props.put("isolation.level", "read_committed");
    props.put("key.deserializer", ByteArrayDeserializer.class.getName());
    props.put("value.deserializer", ByteArrayDeserializer.class.getName());
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        consumer.poll(Duration.ofMillis(500)).forEach(records::add);
      }
    }
    return records;
  }

  private static Properties clientProperties() {
    Properties props = new Properties();
    props.put("bootstrap.servers", stack.kafka().bootstrapServers());
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    return props;
  }

  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    var header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }
}
