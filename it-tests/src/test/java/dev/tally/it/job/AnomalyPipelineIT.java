package dev.tally.it.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.adapters.kafka.DeadLetterHeaders;
import dev.tally.domain.anomaly.Anomaly;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.domain.anomaly.AnomalyVerdict;
import dev.tally.domain.anomaly.Baseline;
import dev.tally.domain.fixtures.TransactionJson;
import dev.tally.domain.fixtures.Transactions;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.Transaction;
import dev.tally.it.Await;
import dev.tally.it.oracle.Input;
import dev.tally.it.oracle.TopicWriter;
import dev.tally.it.support.CommittedRecords;
import dev.tally.it.support.StackFixture;
import dev.tally.it.support.TallyJobs;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyYaml;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/behaviour.md "Anomalies" on the real stack: ten days of event time for three keys, with
 * spikes (some before a baseline has 20 transactions, some after a gap of more than 7 days),
 * refunds, exact duplicates and a late event, through Tally's whole job with anomalies on. The
 * anomaly table and the anomaly topic (read committed) must hold exactly the anomalies the domain
 * rule finds over a baseline recomputed from the accepted transactions alone.
 */
class AnomalyPipelineIT {

  private static final Instant START = Instant.parse("2026-01-05T00:00:00Z");
  private static final long HOUR = 3_600_000L;
  private static final AnomalyRule RULE = new AnomalyRule(400, 20);

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static Path root;
  private static StackFixture fixture;
  private static LocalStack stack;
  private static RESTCatalog catalog;

  @BeforeAll
  static void startStack() throws Exception {
    fixture = StackFixture.start("anomaly-pipeline-it");
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

  /** A transaction of the dataset, and the partition (by user) it goes to. */
  private record Sent(Transaction tx, int partition) {}

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theTableAndTheTopicHoldExactlyTheRulesAnomalies() throws Exception {
    String topic = "tx-anomalies-" + UUID.randomUUID();
    String alerts = topic + ".anomalies";
    stack.kafka().createTopic(topic, 2, Map.of("retention.ms", "-1"));
    stack.kafka().createTopic(alerts, 2, Map.of("retention.ms", "-1"));

    Random random = new Random(20260105L);
    List<Sent> accepted = new ArrayList<>();
    List<Input> inputs = new ArrayList<>();
    // alice/EUR every hour of 10 days; bob/EUR likewise; bob/USD two days, then a gap of 8.
    for (int hour = 0; hour < 240; hour++) {
      day(random, "alice", "EUR", 0, hour, accepted, inputs);
      day(random, "bob", "EUR", 1, hour, accepted, inputs);
      if (hour < 48 || hour >= 232) {
        day(random, "bob", "USD", 1, hour, accepted, inputs);
      }
    }
    // Both partitions reach 10 days and 30 minutes: every hour before is then judged.
    for (int partition = 0; partition < 2; partition++) {
      Transaction closing =
          tx(
              partition == 0 ? "alice" : "bob",
              "EUR",
              1_500,
              START.plusMillis(240 * HOUR + 1_800_000));
      accepted.add(new Sent(closing, partition));
      inputs.add(input(closing, partition, null));
    }
    // Spikes also widen the baselines after them, so only some of them stand out.
    List<Anomaly> expected = oracle(accepted).stream().map(AnomalyPipelineIT::comparable).toList();
    assertThat(expected).as("the dataset has anomalies").hasSizeGreaterThanOrEqualTo(5);
    TopicWriter.produce(stack.kafka().bootstrapServers(), topic, inputs, Duration.ZERO);

    Path config =
        TallyYaml.builder(stack.tallyServices())
            .topic(topic)
            .groupId("tally-" + topic)
            .transactionalIdPrefix("tally-anomaly-dlq")
            .bounded(false)
            .table("spending_anomaly_it")
            .checkpointDirectory(root.resolve("checkpoints"))
            .checkpointInterval(Duration.ofSeconds(1))
            .parallelism(2)
            .set("kafka.source.startup-mode", "earliest")
            .set("anomalies.enabled", "true")
            .set("anomalies.table", "analytics.anomalies_it")
            .writeTo(root.resolve("tally.yaml"));
    JobClient client = TallyJobs.submit(config);

    try {
      // Once every hour before the closing events is judged, a spike of the first day arrives:
      // its window is final, it is LATE, and it enters no baseline.
      Await.until(
          "the anomaly topic holds the expected alerts",
          Duration.ofMinutes(4),
          () -> committed(alerts, 0).size() >= expected.size());
      Transaction late = tx("alice", "EUR", 900_000, START.plusMillis(30 * HOUR));
      TopicWriter.produce(
          stack.kafka().bootstrapServers(),
          topic,
          List.of(input(late, 0, RejectionReason.LATE.name())),
          Duration.ZERO);
      Await.until(
          "the late spike is a dead letter",
          Duration.ofMinutes(2),
          () ->
              CommittedRecords.read(stack.kafka().bootstrapServers(), topic + ".dlq", 1).stream()
                  .anyMatch(
                      r -> "LATE".equals(CommittedRecords.header(r, DeadLetterHeaders.REASON))));
      Await.until(
          "the anomaly table holds the expected rows",
          Duration.ofMinutes(2),
          () -> table().size() >= expected.size());
    } finally {
      client.cancel().get(1, TimeUnit.MINUTES);
    }

    assertThat(table()).containsExactlyInAnyOrderElementsOf(expected);
    List<ConsumerRecord<byte[], byte[]>> records = committed(alerts, expected.size());
    List<Anomaly> fromTopic = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      Anomaly alert = fromJson(record.value());
      assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo(alert.userId());
      fromTopic.add(alert);
    }
    assertThat(fromTopic).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** One hour of a key: a transaction or two, sometimes a spike, a refund or a duplicate. */
  private static void day(
      Random random,
      String user,
      String currency,
      int partition,
      int hour,
      List<Sent> accepted,
      List<Input> inputs) {
    int count = 1 + random.nextInt(2);
    for (int i = 0; i < count; i++) {
      long at = hour * HOUR + i * 1_200_000L + random.nextInt(600_000);
      int kind = random.nextInt(40);
      long amount =
          kind == 0
              ? 40_000 + random.nextInt(40_000) // a spike
              : kind < 3 ? -(100 + random.nextInt(80_000)) : 1_000 + random.nextInt(2_000);
      Transaction tx = tx(user, currency, amount, START.plusMillis(at));
      accepted.add(new Sent(tx, partition));
      inputs.add(input(tx, partition, null));
      if (random.nextInt(30) == 0 || kind == 0 && random.nextBoolean()) {
        inputs.add(input(tx, partition, null)); // an exact duplicate, dropped
      }
    }
  }

  private static Transaction tx(String user, String currency, long amount, Instant at) {
    return Transactions.aTransaction().user(user).currency(currency).amount(amount).at(at).build();
  }

  private static Input input(Transaction tx, int partition, String rejected) {
    return new Input(
        partition,
        tx.userId().getBytes(StandardCharsets.UTF_8),
        TransactionJson.of(tx).toBytes(),
        tx.eventTimeMillis(),
        rejected);
  }

  /** The rule over baselines recomputed from the accepted transactions, one by one. */
  private static List<Anomaly> oracle(List<Sent> accepted) {
    List<Anomaly> anomalies = new ArrayList<>();
    for (Sent sent : accepted) {
      Transaction t = sent.tx();
      long hour = Math.floorDiv(t.eventTimeMillis(), HOUR);
      Baseline baseline = Baseline.EMPTY;
      for (Sent other : accepted) {
        Transaction o = other.tx();
        long h = Math.floorDiv(o.eventTimeMillis(), HOUR);
        if (o.userId().equals(t.userId())
            && o.currency().equals(t.currency())
            && o.amountCents() > 0
            && h >= hour - 168
            && h < hour) {
          baseline = baseline.plus(o.amountCents());
        }
      }
      if (RULE.judge(t.amountCents(), baseline) instanceof AnomalyVerdict.Anomalous anomalous) {
        anomalies.add(
            Anomaly.of(
                t.transactionId(), t.userId(), t.currency(), t.eventTimeMillis(), anomalous));
      }
    }
    return anomalies;
  }

  private static List<ConsumerRecord<byte[], byte[]>> committed(String topic, int expected) {
    return CommittedRecords.read(stack.kafka().bootstrapServers(), topic, expected);
  }

  /** The anomaly table's rows, as anomalies (the score a double there, so back to a decimal). */
  private static List<Anomaly> table() {
    TableIdentifier id = TableIdentifier.of("analytics", "anomalies_it");
    if (!catalog.tableExists(id)) {
      return List.of();
    }
    List<Anomaly> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(catalog.loadTable(id)).build()) {
      for (Record r : records) {
        Double score = (Double) r.getField("score");
        rows.add(
            new Anomaly(
                (String) r.getField("transaction_id"),
                (String) r.getField("user_id"),
                (String) r.getField("currency"),
                ((OffsetDateTime) r.getField("event_timestamp")).toInstant().toEpochMilli(),
                (Long) r.getField("amount_cents"),
                (Long) r.getField("baseline_count"),
                (BigDecimal) r.getField("baseline_mean_cents"),
                (BigDecimal) r.getField("baseline_stddev_cents"),
                score == null ? null : new BigDecimal(Double.toString(score))));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows.stream().map(AnomalyPipelineIT::comparable).toList();
  }

  private static Anomaly fromJson(byte[] value) {
    try {
      JsonNode json =
          new ObjectMapper()
              .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
              .readTree(value);
      JsonNode score = json.get("score");
      return comparable(
          new Anomaly(
              json.get("transaction_id").asText(),
              json.get("user_id").asText(),
              json.get("currency").asText(),
              Instant.parse(json.get("event_timestamp").asText()).toEpochMilli(),
              json.get("amount_cents").asLong(),
              json.get("baseline_count").asLong(),
              json.get("baseline_mean_cents").decimalValue(),
              json.get("baseline_stddev_cents").decimalValue(),
              score.isNull() ? null : score.decimalValue()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The anomaly as every output can hold it: the score rounded to a double (the table's type) and
   * back, the decimals without trailing zeros (JSON numbers do not keep a scale).
   */
  private static Anomaly comparable(Anomaly a) {
    return new Anomaly(
        a.transactionId(),
        a.userId(),
        a.currency(),
        a.eventTimeMillis(),
        a.amountCents(),
        a.baselineCount(),
        a.baselineMeanCents().stripTrailingZeros(),
        a.baselineStddevCents().stripTrailingZeros(),
        a.score() == null
            ? null
            : new BigDecimal(Double.toString(a.score().doubleValue())).stripTrailingZeros());
  }
}
