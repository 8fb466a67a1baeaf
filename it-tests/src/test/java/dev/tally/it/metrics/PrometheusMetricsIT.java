package dev.tally.it.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.it.Await;
import dev.tally.stack.LocalStack;
import dev.tally.stack.LoopbackPorts;
import dev.tally.stack.PrometheusServer;
import dev.tally.stack.PrometheusServer.Sample;
import dev.tally.stack.TallyJobLauncher;
import dev.tally.stack.TallyYaml;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tally's metrics as an operator sees them: the job jar runs locally ({@code TallyMain --local},
 * its Prometheus endpoint from Flink's reporter in flink-lib), a real Prometheus server (Debian's
 * package) scrapes it, and every value is read back through Prometheus' HTTP API, including every
 * expression of the Grafana dashboard in {@code deploy/grafana}.
 */
class PrometheusMetricsIT {
  /**
   * A dead-letter topic created ahead of the job must hold the source topic's largest record with
   * the dead-letter headers, or the job refuses to start (docs/behaviour.md "Record size").
   */
  private static final Map<String, String> DEAD_LETTER_TOPIC_CONFIG =
      Map.of("retention.ms", "-1", "max.message.bytes", String.valueOf(2 * 1024 * 1024));

  private static final String TOPIC = "metrics-transactions";
  private static final int VALID = 400;
  private static final int MALFORMED = 3;
  private static final int MISSING_FIELD = 2;
  private static final String OPERATOR = "flink_taskmanager_job_task_operator_";
  private static final Duration PATIENCE = Duration.ofMinutes(3);

  @TempDir static Path work;

  private static LocalStack stack;
  private static Process job;
  private static PrometheusServer prometheus;

  @BeforeAll
  static void runTheJobScrapedByPrometheus() throws Exception {
    stack = LocalStack.start(work.resolve("stack"));
    stack.kafka().createTopic(TOPIC, 2, Map.of("retention.ms", "-1"));
    stack.kafka().createTopic(TOPIC + ".dlq", 1, DEAD_LETTER_TOPIC_CONFIG);
    produce();

    Path config =
        TallyYaml.builder(stack.tallyServices())
            .topic(TOPIC)
            .checkpointDirectory(work.resolve("checkpoints"))
            .checkpointInterval(Duration.ofSeconds(2))
            .jobName("tally-metrics")
            .parallelism(2)
            .writeTo(work.resolve("tally.yaml"));
    int metricsPort = LoopbackPorts.freePort();
    job =
        TallyJobLauncher.of(config)
            .locally(
                Path.of(System.getProperty("tally.job.jar")),
                Path.of(System.getProperty("tally.flink.lib")))
            .maxHeap("1g")
            .webPort(LoopbackPorts.freePort())
            .metricsPort(metricsPort)
            .temporaryDirectory(work.resolve("job-tmp"))
            .environment(stack.objectStore().awsClientEnvironment())
            .process(work.resolve("job.log"))
            .start();
    prometheus =
        PrometheusServer.start(
            work.resolve("prometheus"),
            List.of(LoopbackPorts.HOST + ":" + metricsPort),
            Duration.ofSeconds(1));
  }

  @AfterAll
  static void stop() throws Exception {
    if (prometheus != null) {
      prometheus.close();
    }
    if (job != null) {
      job.destroy();
      job.waitFor();
    }
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void prometheusReadsRecordsInAsTheSumOverTheJobsSubtasks() {
    awaitValue("sum(" + OPERATOR + "tally_recordsIn)", VALID + MALFORMED + MISSING_FIELD);
    awaitValue("sum(" + OPERATOR + "tally_accepted)", VALID);
    assertThat(prometheus.query(OPERATOR + "tally_recordsIn"))
        .as("one series per subtask of the decode router, labelled as Flink names them")
        .hasSize(2)
        .allSatisfy(
            s ->
                assertThat(s.labels())
                    // The reporter turns every character but letters, digits, _ and : into _.
                    .containsEntry("job_name", "tally_metrics")
                    .containsKeys("subtask_index", "operator_name", "task_name"));
  }

  @Test
  void prometheusReadsRejectionsByReasonAsALabel() {
    String rejected = OPERATOR + "tally_reason_rejected";
    awaitValue("sum(" + rejected + "{reason=\"MALFORMED\"})", MALFORMED);
    awaitValue("sum(" + rejected + "{reason=\"MISSING_FIELD\"})", MISSING_FIELD);
    String query = "sum by (reason) (" + rejected + ")";
    Map<String, Double> byReason =
        prometheus.query(query).stream()
            .collect(Collectors.toMap(s -> s.labels().get("reason"), Sample::value));
    assertThat(byReason)
        .containsEntry("MALFORMED", (double) MALFORMED)
        .containsEntry("MISSING_FIELD", (double) MISSING_FIELD)
        .containsEntry("INVALID_FIELD", 0.0)
        .containsEntry("LATE", 0.0)
        .containsEntry("CONFLICTING_DUPLICATE", 0.0);
  }

  @Test
  void prometheusReadsTheWatermarkLagOfEveryAggregatorSubtask() {
    // The events are at least two hours old, so once the aggregator has a watermark, its lag is
    // more than an hour; before, the gauge says -1.
    String query = "min(" + OPERATOR + "tally_watermarkLagMillis)";
    Await.until(
        "a watermark lag of over an hour on every aggregator subtask",
        PATIENCE,
        () -> value(query) > Duration.ofHours(1).toMillis());
    assertThat(prometheus.query(OPERATOR + "tally_watermarkLagMillis")).hasSize(2);
  }

  @Test
  void everyExpressionOfTheGrafanaDashboardHasSeries() throws Exception {
    JsonNode dashboard =
        new ObjectMapper()
            .readTree(
                Files.readString(
                    Path.of("..", "deploy", "grafana", "tally-dashboard.json"),
                    StandardCharsets.UTF_8));
    List<String> expressions = new ArrayList<>();
    dashboard
        .path("panels")
        .forEach(p -> p.path("targets").forEach(t -> expressions.add(t.path("expr").asText())));
    assertThat(expressions).hasSizeGreaterThanOrEqualTo(10);
    // Commits, maintenance and RocksDB's estimates come only after the first checkpoints.
    for (String expression : expressions) {
      Await.until(
          "series for the dashboard's " + expression,
          PATIENCE,
          () -> !prometheus.query(expression).isEmpty());
    }
  }

  private static void awaitValue(String query, double expected) {
    Await.until(query + " = " + expected, PATIENCE, () -> value(query) == expected);
  }

  /** The single value of {@code query}; NaN while it has no series. */
  private static double value(String query) {
    List<Sample> samples = prometheus.query(query);
    assertThat(samples).hasSizeLessThanOrEqualTo(1);
    return samples.isEmpty() ? Double.NaN : samples.get(0).value();
  }

  /**
   * Valid transactions two to four hours old (20 s apart), spread over event time so that windows
   * close and rows reach Iceberg; and records rejected while decoding.
   */
  private static void produce() throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", stack.kafka().bootstrapServers());
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(4));
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (int i = 0; i < VALID; i++) {
        String user = "user-" + (i % 7);
        send(
            producer,
            user,
            """
            {"transaction_id":"tx-%d","user_id":"%s","amount_cents":%d,"currency":"EUR",\
            "event_timestamp":"%s"}"""
                .formatted(i, user, 100 + i, start.plusSeconds(20L * i)));
      }
      for (int i = 0; i < MALFORMED; i++) {
        send(producer, "bad", "{not json " + i);
      }
      for (int i = 0; i < MISSING_FIELD; i++) {
        send(
            producer,
            "bad",
            """
            {"transaction_id":"m-%d","user_id":"u","amount_cents":1,"event_timestamp":"%s"}"""
                .formatted(i, start));
      }
      producer.flush();
    }
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, String key, String value) {
    producer.send(
        new ProducerRecord<>(
            TOPIC, key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8)));
  }
}
