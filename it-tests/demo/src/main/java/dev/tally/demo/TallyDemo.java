package dev.tally.demo;

import dev.tally.stack.DurationConverter;
import dev.tally.stack.FlinkRestClient;
import dev.tally.stack.HelpOption;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyJobLauncher;
import dev.tally.stack.TallyYaml;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The whole pipeline on embedded real services: a Kafka broker, an Iceberg REST catalog and an
 * S3-compatible store, each in its own JVM; realistic traffic; and Tally's job jar running locally
 * with the Flink web UI, with anomaly detection on. Prints live progress, then the top spenders of
 * the closed windows and the latest anomalies, read back from Iceberg.
 *
 * <pre>
 * ./demo.sh [--duration 120s] [--rate 300] [--web-port 8081] [--metrics-port 9249]
 * </pre>
 */
@Command(
    name = "demo.sh",
    description =
        "The whole pipeline on embedded real services (Kafka, an Iceberg REST catalog, an"
            + " S3-compatible store) with generated traffic and Tally's job jar running locally;"
            + " live progress, then the top spenders and the latest anomalies read back from"
            + " Iceberg.")
public final class TallyDemo implements Callable<Integer> {
  @Mixin private HelpOption help;

  private static final String TOPIC = "financial-transactions";
  private static final String DLQ = TOPIC + ".dlq";

  /**
   * Tally's default anomaly topic for {@link #TOPIC}; created here with 4 partitions, where Tally's
   * start would create it with the broker's default.
   */
  private static final String ANOMALY_TOPIC = TOPIC + ".anomalies";

  private static final String GROUP = "tally-demo";

  /** The aggregator's operator uid: its vertex id follows from it ({@link FlinkRestClient}). */
  private static final String AGGREGATOR_UID = "tally-spending-aggregator";

  private static final TableIdentifier TABLE =
      TableIdentifier.of("analytics", "user_hourly_spending");

  /** Tally's default {@code anomalies.table}. */
  private static final TableIdentifier ANOMALIES =
      TableIdentifier.of("analytics", "spending_anomalies");

  /** How many of the newest anomalies the report lists. */
  private static final int LATEST_ANOMALIES = 10;

  /**
   * The snapshot summary property Tally's commits carry: windows ending at or before it (plus the
   * allowed lateness, 0 in the demo) are final (docs/final-hours.md).
   */
  private static final String WATERMARK = "tally.watermark";

  private static final DateTimeFormatter WINDOW =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter HOUR_MINUTE =
      DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter CLOCK_DATE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      defaultValue = "120s",
      converter = DurationConverter.class,
      description = "How long traffic runs before the report: 90s, 5m (default: ${DEFAULT-VALUE}).")
  private Duration duration;

  @Option(
      names = "--rate",
      paramLabel = "EVENTS",
      defaultValue = "300",
      description = "Events produced per second (default: ${DEFAULT-VALUE}).")
  private int rate;

  @Option(
      names = "--web-port",
      paramLabel = "PORT",
      defaultValue = "8081",
      description = "Port of the job's Flink web UI (default: ${DEFAULT-VALUE}).")
  private int webPort;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      defaultValue = "9249",
      description = "Port of the job's Prometheus endpoint (default: ${DEFAULT-VALUE}).")
  private int metricsPort;

  private TallyDemo() {}

  /** Runs the demo; {@code --help} for the options. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new TallyDemo()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Path jobJar =
        Path.of(
            System.getProperty(
                "tally.job.jar", "runtime-flink/target/tally-runtime-flink-job.jar"));
    Path flinkLib =
        Path.of(System.getProperty("tally.flink.lib", "runtime-flink/target/flink-lib"));
    if (!Files.isRegularFile(jobJar) || !Files.isDirectory(flinkLib)) {
      throw new IllegalStateException(
          "build first: no job jar at " + jobJar + " or no " + flinkLib);
    }
    // A fresh directory per run: a broker's data directory is bound to the cluster id it was
    // formatted with.
    Path work =
        Path.of(System.getProperty("tally.demo.dir", "target/demo"))
            .resolve(
                "run-"
                    + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                        .withZone(ZoneOffset.UTC)
                        .format(Instant.now()))
            .toAbsolutePath();
    Files.createDirectories(work);
    run(work, jobJar, flinkLib);
    return 0;
  }

  private void run(Path work, Path jobJar, Path flinkLib) throws Exception {
    say(
        "Starting the local stack (Kafka broker, S3-compatible store, Iceberg REST catalog) under "
            + work);
    LocalStack stack = LocalStack.start(work.resolve("stack"));
    Process job = null;
    TrafficGenerator generator = null;
    try {
      say("Stack up in " + stack.startup().toMillis() + " ms:\n" + indent(stack.describe()));
      stack.kafka().createTopic(TOPIC, 4, Map.of("retention.ms", "-1"));
      // Tally writes anomalies to this topic but never creates it: it must exist before the job.
      stack.kafka().createTopic(ANOMALY_TOPIC, 4, Map.of("retention.ms", "-1"));

      Path config = writeConfig(work, stack);
      job = startJob(work, jobJar, flinkLib, config, stack);
      Process jobProcess = job;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> jobProcess.destroy()));
      say("Tally job started (pid " + job.pid() + "), log: " + work.resolve("job.log"));
      say("Flink web UI: http://localhost:" + webPort);
      say(
          "Prometheus metrics: http://localhost:"
              + metricsPort
              + "/metrics (scrape it; dashboard: deploy/grafana/tally-dashboard.json)");

      generator = new TrafficGenerator(producer(stack), TOPIC, rate, 60, 42);
      Thread traffic = new Thread(generator, "traffic");
      traffic.setDaemon(true);
      traffic.start();
      TrafficGenerator running = generator;
      Runtime.getRuntime().addShutdownHook(new Thread(running::stop));
      say(
          "Producing ~"
              + rate
              + " events/s to "
              + TOPIC
              + " (event time runs 60x until it catches up with now)");

      DeadLetterCounter deadLetters = new DeadLetterCounter(stack.kafka().bootstrapServers());
      Thread dlqReader = new Thread(deadLetters, "dlq-reader");
      dlqReader.setDaemon(true);
      dlqReader.start();

      RESTCatalog catalog = catalog(stack);
      FlinkRestClient flink = FlinkRestClient.onLoopback(webPort);
      Instant end = Instant.now().plus(duration);
      while (Instant.now().isBefore(end) && job.isAlive()) {
        Thread.sleep(5_000);
        progress(generator, stack, deadLetters, catalog, flink);
      }
      if (!job.isAlive()) {
        throw new IllegalStateException(
            "the job exited with " + job.exitValue() + "; see " + work.resolve("job.log"));
      }
      generator.stop();
      say("Traffic stopped; waiting for the last checkpoint to commit…");
      Thread.sleep(12_000);
      progress(generator, stack, deadLetters, catalog, flink);
      printTopSpenders(catalog);
      printAnomalies(catalog, generator.spikes());
      say(
          "Where things are:\n"
              + "  Iceberg table  "
              + TABLE
              + " in the REST catalog "
              + stack.catalog().uri()
              + " (warehouse "
              + stack.catalog().warehouse()
              + ")\n"
              + "  data files     "
              + stack.objectStore().dataDirectory()
              + "\n"
              + "  anomalies      table "
              + ANOMALIES
              + ", topic "
              + ANOMALY_TOPIC
              + " (read_committed)\n"
              + "  dead letters   topic "
              + DLQ
              + " on "
              + stack.kafka().bootstrapServers()
              + " (read with isolation.level=read_committed)\n"
              + "  metrics        http://localhost:"
              + metricsPort
              + "/metrics (Prometheus; Grafana dashboard deploy/grafana/tally-dashboard.json)\n"
              + "  job log        "
              + work.resolve("job.log")
              + "\n"
              + "  configuration  "
              + work.resolve("tally.yaml"));
      catalog.close();
    } finally {
      if (generator != null) {
        generator.stop();
      }
      if (job != null) {
        job.destroy();
        job.waitFor();
      }
      stack.close();
      say("Stopped.");
    }
  }

  private static Path writeConfig(Path work, LocalStack stack) {
    return TallyYaml.builder(stack.tallyServices())
        .topic(TOPIC)
        .groupId(GROUP)
        .deadLetterTopic(DLQ)
        .transactionalIdPrefix("tally-demo-dlq")
        .checkpointDirectory(work.resolve("checkpoints"))
        .checkpointInterval(Duration.ofSeconds(5))
        .jobName("tally-demo")
        .parallelism(2)
        // Off by default in Tally; on here, with the default rule, table and topic.
        .set("anomalies.enabled", "true")
        .writeTo(work.resolve("tally.yaml"));
  }

  private Process startJob(Path work, Path jobJar, Path flinkLib, Path config, LocalStack stack)
      throws IOException {
    return TallyJobLauncher.of(config)
        .locally(jobJar, flinkLib)
        .maxHeap("1536m")
        .webPort(webPort)
        .metricsPort(metricsPort)
        // S3FileIO takes credentials and region from the AWS SDK's default chain: the environment.
        .environment(stack.objectStore().awsClientEnvironment())
        .process(work.resolve("job.log"))
        .start();
  }

  private static KafkaProducer<byte[], byte[]> producer(LocalStack stack) {
    Properties props = new Properties();
    props.put("bootstrap.servers", stack.kafka().bootstrapServers());
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    props.put("linger.ms", "20");
    return new KafkaProducer<>(props);
  }

  private static RESTCatalog catalog(LocalStack stack) {
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("demo", stack.catalog().clientProperties());
    return catalog;
  }

  private void progress(
      TrafficGenerator generator,
      LocalStack stack,
      DeadLetterCounter deadLetters,
      RESTCatalog catalog,
      FlinkRestClient flink) {
    long committed = committedOffsets(stack.kafka().bootstrapServers());
    String watermark =
        watermark(flink).map(w -> CLOCK.format(Instant.ofEpochMilli(w + 1))).orElse("-");
    String commit = "-";
    if (catalog.tableExists(TABLE)) {
      Table table = catalog.loadTable(TABLE);
      Snapshot snapshot = table.currentSnapshot();
      if (snapshot != null) {
        commit =
            CLOCK.format(Instant.ofEpochMilli(snapshot.timestampMillis()))
                + " ("
                + snapshot.summary().getOrDefault("total-records", "?")
                + " rows, snapshot "
                + snapshot.sequenceNumber()
                + newestMarked(table)
                    .map(
                        s ->
                            ", "
                                + WATERMARK
                                + " "
                                + describeWatermark(Long.parseLong(s.summary().get(WATERMARK))))
                    .orElse("")
                + ")";
      }
    }
    say(
        String.format(
            "produced %,d | processed (committed offsets) %,d | rejected %s | watermark %s (event clock %s) | last Iceberg commit %s | anomalies %s",
            generator.produced(),
            committed,
            deadLetters.describe(),
            watermark,
            CLOCK.format(generator.eventClock()),
            commit,
            anomalyCount(catalog)));
  }

  private void printTopSpenders(RESTCatalog catalog) throws IOException {
    if (!catalog.tableExists(TABLE)) {
      say("No table yet: no window has closed.");
      return;
    }
    Table table = catalog.loadTable(TABLE);
    table.refresh();
    Optional<Snapshot> marked = newestMarked(table);
    long finalThrough =
        marked.map(s -> Long.parseLong(s.summary().get(WATERMARK))).orElse(Long.MIN_VALUE);
    Map<Long, List<Record>> byWindow = new TreeMap<>(Comparator.reverseOrder());
    // Read as of the marked snapshot, as a batch reader waiting for final hours does.
    IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(table);
    if (marked.isPresent()) {
      scan = scan.useSnapshot(marked.get().snapshotId());
    }
    try (CloseableIterable<Record> rows = scan.build()) {
      for (Record row : rows) {
        long start =
            ((java.time.OffsetDateTime) row.getField("window_start")).toInstant().toEpochMilli();
        byWindow.computeIfAbsent(start, k -> new ArrayList<>()).add(row);
      }
    }
    say(
        "Top spenders per window, read back from Iceberg ("
            + TABLE
            + marked
                .map(
                    s ->
                        " as of snapshot "
                            + s.snapshotId()
                            + ", "
                            + WATERMARK
                            + " "
                            + describeWatermark(finalThrough))
                .orElse(", no snapshot with " + WATERMARK)
            + "):");
    byWindow.entrySet().stream()
        .limit(3)
        .forEach(
            window -> {
              long end = window.getKey() + 3_600_000L;
              System.out.printf(
                  "%n  window %s–%s UTC (%d rows, %s)%n",
                  WINDOW.format(Instant.ofEpochMilli(window.getKey())),
                  HOUR_MINUTE.format(Instant.ofEpochMilli(end)),
                  window.getValue().size(),
                  end <= finalThrough ? "final" : "not final yet");
              System.out.printf(
                  "  %-12s %-8s %18s %8s%n", "user", "currency", "total_spent_cents", "count");
              window.getValue().stream()
                  .sorted(
                      Comparator.comparingLong((Record r) -> (Long) r.getField("total_spent_cents"))
                          .reversed())
                  .limit(5)
                  .forEach(
                      r ->
                          System.out.printf(
                              "  %-12s %-8s %,18d %8d%n",
                              r.getField("user_id"),
                              r.getField("currency"),
                              (Long) r.getField("total_spent_cents"),
                              (Long) r.getField("transaction_count")));
            });
    System.out.println();
  }

  /** The anomaly table's row count in its current snapshot; "0" until its first commit. */
  private static String anomalyCount(RESTCatalog catalog) {
    if (!catalog.tableExists(ANOMALIES)) {
      return "0";
    }
    Snapshot snapshot = catalog.loadTable(ANOMALIES).currentSnapshot();
    return snapshot == null ? "0" : snapshot.summary().getOrDefault("total-records", "?");
  }

  /**
   * The newest anomalies by event time, read back from Iceberg; {@code spikes} marks the ones the
   * generator injected, since the heavy-tailed amounts also make some anomalies of their own.
   */
  private void printAnomalies(RESTCatalog catalog, Set<String> spikes) throws IOException {
    if (!catalog.tableExists(ANOMALIES)) {
      say("No anomaly table yet.");
      return;
    }
    Table table = catalog.loadTable(ANOMALIES);
    table.refresh();
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> scan = IcebergGenerics.read(table).build()) {
      scan.forEach(rows::add);
    }
    long injected =
        rows.stream().filter(r -> spikes.contains((String) r.getField("transaction_id"))).count();
    say(
        String.format(
            "Anomalies, read back from Iceberg (%s): %,d, %,d of them spikes the generator injected"
                + " (of %,d injected: one in the first event hour has no baseline yet, and an earlier"
                + " spike in a baseline widens its stddev); the latest %d, with the count, mean and"
                + " stddev of the baseline (n, mean, stddev, cents) and the score:",
            ANOMALIES,
            rows.size(),
            injected,
            spikes.size(),
            Math.min(LATEST_ANOMALIES, rows.size())));
    System.out.printf(
        "%n  %-22s %-8s %-4s %-20s %13s %6s %11s %11s %6s %s%n",
        "transaction_id",
        "user",
        "cur",
        "event_timestamp",
        "amount_cents",
        "n",
        "mean",
        "stddev",
        "score",
        "");
    rows.stream()
        .sorted(
            Comparator.comparing((Record r) -> (OffsetDateTime) r.getField("event_timestamp"))
                .reversed())
        .limit(LATEST_ANOMALIES)
        .forEach(
            r -> {
              Double score = (Double) r.getField("score");
              String id = (String) r.getField("transaction_id");
              System.out.printf(
                  "  %-22s %-8s %-4s %-20s %,13d %6d %,11.0f %,11.0f %6s %s%n",
                  id,
                  r.getField("user_id"),
                  r.getField("currency"),
                  CLOCK_DATE.format(((OffsetDateTime) r.getField("event_timestamp")).toInstant()),
                  (Long) r.getField("amount_cents"),
                  (Long) r.getField("baseline_count"),
                  (BigDecimal) r.getField("baseline_mean_cents"),
                  (BigDecimal) r.getField("baseline_stddev_cents"),
                  score == null ? "-" : String.format("%.1f", score),
                  spikes.contains(id) ? "spike" : "");
            });
    System.out.println();
  }

  /** The newest snapshot of the current ancestry that carries a completeness marker. */
  private static Optional<Snapshot> newestMarked(Table table) {
    for (Snapshot s = table.currentSnapshot(); s != null; ) {
      if (s.summary().containsKey(WATERMARK)) {
        return Optional.of(s);
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    return Optional.empty();
  }

  private static String describeWatermark(long watermark) {
    if (watermark == Long.MAX_VALUE) {
      return "at the end of input";
    }
    if (watermark == Long.MIN_VALUE) {
      return "not set yet";
    }
    return Instant.ofEpochMilli(watermark).toString();
  }

  private static long committedOffsets(String bootstrap) {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(props)) {
      ListConsumerGroupOffsetsResult result = admin.listConsumerGroupOffsets(GROUP);
      return result.partitionsToOffsetAndMetadata().get().values().stream()
          .filter(Objects::nonNull)
          .mapToLong(o -> o.offset())
          .sum();
    } catch (Exception e) {
      return 0;
    }
  }

  /** The aggregator's current input watermark, found by its uid; empty until it has one. */
  private static Optional<Long> watermark(FlinkRestClient flink) {
    try {
      return flink.onlyJob().flatMap(job -> flink.inputWatermark(job.id(), AGGREGATOR_UID));
    } catch (RuntimeException e) {
      // The job is between restarts or not deployed yet: no watermark to show this time.
      return Optional.empty();
    }
  }

  /** Counts committed dead letters by reason, as a downstream consumer would see them. */
  private static final class DeadLetterCounter implements Runnable {
    private final String bootstrap;
    private final Map<String, AtomicLong> byReason = new ConcurrentHashMap<>();

    DeadLetterCounter(String bootstrap) {
      this.bootstrap = bootstrap;
    }

    String describe() {
      if (byReason.isEmpty()) {
        return "0";
      }
      StringBuilder out = new StringBuilder();
      new TreeMap<>(byReason)
          .forEach(
              (reason, count) ->
                  out.append(out.length() == 0 ? "" : " ")
                      .append(reason)
                      .append('=')
                      .append(count.get()));
      return out.toString();
    }

    @Override
    public void run() {
      Properties props = new Properties();
      props.put("bootstrap.servers", bootstrap);
      props.put("group.id", "demo-dlq-reader");
      props.put("auto.offset.reset", "earliest");
      props.put("isolation.level", "read_committed");
      props.put("key.deserializer", ByteArrayDeserializer.class.getName());
      props.put("value.deserializer", ByteArrayDeserializer.class.getName());
      try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
        consumer.subscribe(List.of(DLQ));
        while (!Thread.currentThread().isInterrupted()) {
          for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofSeconds(1))) {
            var header = record.headers().lastHeader("tally.reason");
            String reason =
                header == null ? "?" : new String(header.value(), StandardCharsets.UTF_8);
            byReason.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
          }
        }
      }
    }
  }

  private static String indent(String text) {
    return "  " + text.replace("\n", "\n  ");
  }

  private static void say(String message) {
    System.out.println("[" + CLOCK.format(Instant.now()) + "] " + message);
  }
}
