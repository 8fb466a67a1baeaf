package dev.tally.it.kafka;

import static dev.tally.domain.fixtures.TransactionJson.aTransactionJson;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.adapters.kafka.DeadLetterHeaders;
import dev.tally.domain.fixtures.TransactionJson;
import dev.tally.domain.fixtures.Transactions;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.TransactionField;
import dev.tally.it.Await;
import dev.tally.it.support.CommittedRecords;
import dev.tally.it.support.SpendingRows;
import dev.tally.it.support.StackFixture;
import dev.tally.it.support.TallyJobs;
import dev.tally.stack.FlinkRestClient;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyYaml;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/behaviour.md "Record size", on the real stack: a source topic that holds records of 2 MiB,
 * records of 2 MiB, of 1 MiB + 1 byte and just under 1 MiB among valid ones, and Tally's whole job
 * (its Guice modules, as {@code TallyMain} builds it). The job sizes the dead-letter path from the
 * source topic and creates the dead-letter topic, so every rejected record arrives whole; one
 * record that the source holds compressed but that is larger than any batch the dead-letter topic
 * accepts arrives without its value, marked. The job never restarts and counts every valid record.
 */
class OversizedRecordIT {

  private static final int MIB = 1024 * 1024;

  /** The source topic's limit: a record of 2 MiB plus its key and batch overhead. */
  private static final int SOURCE_LIMIT = 2 * MIB + 1024;

  // In the past: the broker refuses record timestamps more than an hour ahead of its clock.
  private static final Instant HOUR = Instant.parse("2026-01-15T10:00:00Z");

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static StackFixture fixture;
  private static Path root;
  private static LocalStack stack;
  private static RESTCatalog catalog;

  @BeforeAll
  static void startStack() throws Exception {
    fixture = StackFixture.start("oversized-record-it");
    root = fixture.root();
    stack = fixture.stack();
    catalog = fixture.catalog();
  }

  @AfterAll
  static void stopStack() throws Exception {
    if (fixture != null) {
      fixture.close();
    }
  }

  /** A record to produce; {@code reason} null for one that counts. */
  private record Input(int partition, byte[] key, byte[] value, String reason) {}

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void oversizedRecordsBecomeDeadLettersAndTheJobNeverRestarts(@InjectMiniCluster MiniCluster flink)
      throws Exception {
    String topic = "tx-oversize-" + UUID.randomUUID();
    String dlq = topic + ".dlq";
    stack
        .kafka()
        .createTopic(
            topic,
            2,
            Map.of("retention.ms", "-1", "max.message.bytes", Integer.toString(SOURCE_LIMIT)));

    List<Input> inputs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      inputs.add(valid(0, "alice", "EUR", 100 + i, HOUR.plusSeconds(60L * i)));
      inputs.add(valid(1, "bob", "USD", 1_000 + i, HOUR.plusSeconds(60L * i + 30)));
      if (i == 2) {
        inputs.add(bad(0, padded(2 * MIB), RejectionReason.MALFORMED)); // over the record limit
      }
      if (i == 4) {
        inputs.add(bad(1, padded(MIB + 1), RejectionReason.MALFORMED)); // one byte over it
      }
      if (i == 6) {
        // Just under the limit, not JSON: decoded, rejected, and too large for a producer of
        // 1 MiB requests once the headers are added.
        byte[] notJson = new byte[MIB - 100];
        Arrays.fill(notJson, (byte) 'x');
        inputs.add(bad(0, notJson, RejectionReason.MALFORMED));
      }
      if (i == 8) {
        // Just under, valid JSON without a user.
        inputs.add(
            bad(
                1,
                aTransactionJson()
                    .without(TransactionField.USER_ID)
                    .raw("padding", TransactionJson.quote("p".repeat(MIB - 300)))
                    .toBytes(),
                RejectionReason.MISSING_FIELD));
      }
    }
    produce(topic, inputs, "none");
    // 3 MiB that compress to almost nothing: the source topic holds the compressed batch, but no
    // batch of the dead-letter topic (2 MiB + 9 KiB) holds the record uncompressed.
    byte[] compressible = new byte[3 * MIB];
    Arrays.fill(compressible, (byte) 'z');
    Input compressed = bad(0, compressible, RejectionReason.MALFORMED);
    produce(topic, List.of(compressed), "gzip");

    Path config =
        TallyYaml.builder(stack.tallyServices())
            .topic(topic)
            .groupId("tally-" + topic)
            .transactionalIdPrefix("tally-oversize-dlq")
            .bounded(true)
            .table("spending_oversize")
            .checkpointDirectory(root.resolve("checkpoints"))
            .checkpointInterval(Duration.ofSeconds(1))
            .parallelism(2)
            .writeTo(root.resolve("tally.yaml"));
    JobClient client = TallyJobs.submit(config);
    JobID id = client.getJobID();

    FlinkRestClient rest = new FlinkRestClient(flink.getRestAddress().get().toString());
    // On the old code the dead-letter sink failed on the first oversized record and the job
    // restarted on it, again and again: stop waiting at the first restart.
    Await.until(
        "job " + id + " ends or restarts",
        Duration.ofMinutes(4),
        () -> {
          FlinkRestClient.JobDetails details = rest.job(id.toHexString());
          return details.lastTransitionTo("RESTARTING") > 0
              || List.of("FINISHED", "FAILED", "CANCELED").contains(details.state());
        });
    FlinkRestClient.JobDetails details = rest.job(id.toHexString());
    assertThat(details.lastTransitionTo("RESTARTING"))
        .as("restarts: the job never restarted")
        .isZero();
    assertThat(details.state()).isEqualTo("FINISHED");

    // Every valid record counted.
    Map<SpendingRows.Key, SpendingRows.Totals> rows =
        SpendingRows.readTallyTable(catalog, TableIdentifier.of("analytics", "spending_oversize"));
    assertThat(rows)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                new SpendingRows.Key("alice", "EUR", HOUR),
                new SpendingRows.Totals(1_045, 10),
                new SpendingRows.Key("bob", "USD", HOUR),
                new SpendingRows.Totals(10_045, 10)));

    // The dead-letter topic Tally created, sized for the source topic's largest record.
    assertThat(topicLimit(dlq)).isEqualTo(SOURCE_LIMIT + 8_192L);
    List<Input> rejected =
        new ArrayList<>(inputs.stream().filter(i -> i.reason() != null).toList());
    rejected.add(compressed);
    List<ConsumerRecord<byte[], byte[]>> letters =
        CommittedRecords.read(stack.kafka().bootstrapServers(), dlq, rejected.size());
    assertThat(letters).hasSize(rejected.size());
    assertThat(letters)
        .extracting(
            r ->
                CommittedRecords.header(r, DeadLetterHeaders.SOURCE_PARTITION)
                    + "@"
                    + CommittedRecords.header(r, DeadLetterHeaders.SOURCE_OFFSET))
        .doesNotHaveDuplicates();
    Map<Integer, Input> byValueSize = new HashMap<>();
    rejected.forEach(i -> byValueSize.put(i.value().length, i));
    assertThat(byValueSize).as("rejected records told apart by size").hasSize(rejected.size());
    int whole = 0;
    for (ConsumerRecord<byte[], byte[]> letter : letters) {
      assertThat(CommittedRecords.header(letter, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo(topic);
      assertThat(CommittedRecords.header(letter, DeadLetterHeaders.SOURCE_TIMESTAMP)).isNotBlank();
      Header omitted = letter.headers().lastHeader(DeadLetterHeaders.OMITTED);
      if (omitted == null) {
        Input original = byValueSize.get(letter.value().length);
        assertThat(original).as("a dead letter of %d bytes", letter.value().length).isNotNull();
        assertThat(letter.value()).isEqualTo(original.value());
        assertThat(letter.key()).isEqualTo(original.key());
        assertThat(CommittedRecords.header(letter, DeadLetterHeaders.REASON))
            .isEqualTo(original.reason());
        assertThat(CommittedRecords.header(letter, DeadLetterHeaders.SOURCE_PARTITION))
            .isEqualTo(Integer.toString(original.partition()));
        whole++;
      } else {
        // The compressed one: no batch of the dead-letter topic holds it whole.
        assertThat(new String(omitted.value(), StandardCharsets.UTF_8)).isEqualTo("value");
        assertThat(letter.value()).isNull();
        assertThat(letter.key()).isEqualTo(compressed.key());
        assertThat(CommittedRecords.header(letter, DeadLetterHeaders.REASON))
            .isEqualTo("MALFORMED");
        assertThat(CommittedRecords.header(letter, DeadLetterHeaders.MESSAGE))
            .contains(Integer.toString(compressible.length));
        assertThat(CommittedRecords.header(letter, DeadLetterHeaders.OMITTED_DETAIL))
            .contains("the value " + compressible.length + " bytes");
      }
    }
    assertThat(whole).as("dead letters with their original bytes").isEqualTo(rejected.size() - 1);
  }

  private static Input valid(int partition, String user, String currency, long amount, Instant at) {
    return new Input(
        partition,
        user.getBytes(StandardCharsets.UTF_8),
        TransactionJson.of(
                Transactions.aTransaction()
                    .user(user)
                    .currency(currency)
                    .amount(amount)
                    .at(at)
                    .build())
            .toBytes(),
        null);
  }

  private static Input bad(int partition, byte[] value, RejectionReason reason) {
    return new Input(
        partition, ("bad-" + value.length).getBytes(StandardCharsets.UTF_8), value, reason.name());
  }

  /** A valid transaction, padded by an unknown field to exactly {@code bytes}. */
  private static byte[] padded(int bytes) {
    TransactionJson json = aTransactionJson().raw("padding", "\"\"");
    String padding = "p".repeat(bytes - json.toBytes().length);
    byte[] value = json.raw("padding", TransactionJson.quote(padding)).toBytes();
    assertThat(value).hasSize(bytes);
    return value;
  }

  private static void produce(String topic, List<Input> inputs, String compression)
      throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
    props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(8 * MIB));
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (Input input : inputs) {
        producer
            .send(
                new ProducerRecord<>(
                    topic,
                    input.partition(),
                    HOUR.plusSeconds(3_590).toEpochMilli(),
                    input.key(),
                    input.value()))
            .get();
      }
    }
  }

  private static long topicLimit(String topic) throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", stack.kafka().bootstrapServers());
    try (Admin admin = Admin.create(props)) {
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
      return Long.parseLong(config.get("max.message.bytes").value());
    }
  }
}
