package dev.tally.demo;

import dev.tally.bench.TallyJobLauncher;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyYaml;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

/**
 * The whole pipeline on embedded real services: a Kafka broker, an Iceberg REST catalog and an
 * S3-compatible store, each in its own JVM; realistic traffic; and Tally's job jar running locally
 * with the Flink web UI. Prints live progress, then the top spenders of the closed windows read
 * back from Iceberg.
 *
 * <pre>
 * ./demo.sh [--duration 120s] [--rate 300]
 * </pre>
 */
public final class TallyDemo {

  private static final String TOPIC = "financial-transactions";
  private static final String DLQ = TOPIC + ".dlq";
  private static final String GROUP = "tally-demo";
  private static final TableIdentifier TABLE =
      TableIdentifier.of("analytics", "user_hourly_spending");
  private static final DateTimeFormatter WINDOW =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter HOUR_MINUTE =
      DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  private TallyDemo() {}

  public static void main(String[] args) throws Exception {
    Duration duration = Duration.ofSeconds(120);
    int rate = 300;
    int webPort = 8081;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--duration" -> duration = parseDuration(args[++i]);
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--web-port" -> webPort = Integer.parseInt(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown argument " + args[i] + "; use --duration 120s --rate 300");
      }
    }
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
    new TallyDemo().run(work, jobJar, flinkLib, duration, rate, webPort);
  }

  private void run(Path work, Path jobJar, Path flinkLib, Duration duration, int rate, int webPort)
      throws Exception {
    say(
        "Starting the local stack (Kafka broker, S3-compatible store, Iceberg REST catalog) under "
            + work);
    LocalStack stack = LocalStack.start(work.resolve("stack"));
    Process job = null;
    TrafficGenerator generator = null;
    try {
      say("Stack up in " + stack.startup().toMillis() + " ms:\n" + indent(stack.describe()));
      stack.kafka().createTopic(TOPIC, 4, Map.of("retention.ms", "-1"));
      stack.kafka().createTopic(DLQ, 1, Map.of("retention.ms", "-1"));

      Path config = writeConfig(work, stack);
      job = startJob(work, jobJar, flinkLib, config, stack, webPort);
      Process jobProcess = job;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> jobProcess.destroy()));
      say("Tally job started (pid " + job.pid() + "), log: " + work.resolve("job.log"));
      say("Flink web UI: http://localhost:" + webPort);

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
      Instant end = Instant.now().plus(duration);
      while (Instant.now().isBefore(end) && job.isAlive()) {
        Thread.sleep(5_000);
        progress(generator, stack, deadLetters, catalog, webPort);
      }
      if (!job.isAlive()) {
        throw new IllegalStateException(
            "the job exited with " + job.exitValue() + "; see " + work.resolve("job.log"));
      }
      generator.stop();
      say("Traffic stopped; waiting for the last checkpoint to commit…");
      Thread.sleep(12_000);
      progress(generator, stack, deadLetters, catalog, webPort);
      printTopSpenders(catalog, webPort);
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
              + "  dead letters   topic "
              + DLQ
              + " on "
              + stack.kafka().bootstrapServers()
              + " (read with isolation.level=read_committed)\n"
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
        .writeTo(work.resolve("tally.yaml"));
  }

  private static Process startJob(
      Path work, Path jobJar, Path flinkLib, Path config, LocalStack stack, int webPort)
      throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx1536m", "-XX:+UseG1GC"));
    command.add("-Dlog4j2.configurationFile=" + TallyJobLauncher.writeLogConfig(work).toUri());
    command.addAll(List.of("-cp", jobJar + File.pathSeparator + flinkLib.resolve("*")));
    command.addAll(
        List.of("dev.tally.runtime.TallyMain", "--local", "--web-port", Integer.toString(webPort)));
    command.addAll(List.of("--config", config.toString()));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("job.log").toFile());
    // S3FileIO takes credentials and region from the AWS SDK's default chain: the environment.
    builder.environment().putAll(stack.objectStore().awsClientEnvironment());
    return builder.start();
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
      int webPort) {
    long committed = committedOffsets(stack.kafka().bootstrapServers());
    String watermark =
        watermark(webPort).map(w -> CLOCK.format(Instant.ofEpochMilli(w + 1))).orElse("-");
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
                + ")";
      }
    }
    say(
        String.format(
            "produced %,d | processed (committed offsets) %,d | rejected %s | watermark %s (event clock %s) | last Iceberg commit %s",
            generator.produced(),
            committed,
            deadLetters.describe(),
            watermark,
            CLOCK.format(generator.eventClock()),
            commit));
  }

  private void printTopSpenders(RESTCatalog catalog, int webPort) throws IOException {
    if (!catalog.tableExists(TABLE)) {
      say("No table yet: no window has closed.");
      return;
    }
    Table table = catalog.loadTable(TABLE);
    table.refresh();
    Map<Long, List<Record>> byWindow = new TreeMap<>(Comparator.reverseOrder());
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        long start =
            ((java.time.OffsetDateTime) row.getField("window_start")).toInstant().toEpochMilli();
        byWindow.computeIfAbsent(start, k -> new ArrayList<>()).add(row);
      }
    }
    say("Top spenders per closed window, read back from Iceberg (" + TABLE + "):");
    byWindow.entrySet().stream()
        .limit(3)
        .forEach(
            window -> {
              System.out.printf(
                  "%n  window %s–%s UTC (%d rows)%n",
                  WINDOW.format(Instant.ofEpochMilli(window.getKey())),
                  HOUR_MINUTE.format(Instant.ofEpochMilli(window.getKey() + 3_600_000L)),
                  window.getValue().size());
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

  private static long committedOffsets(String bootstrap) {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(props)) {
      ListConsumerGroupOffsetsResult result = admin.listConsumerGroupOffsets(GROUP);
      return result.partitionsToOffsetAndMetadata().get().values().stream()
          .filter(java.util.Objects::nonNull)
          .mapToLong(o -> o.offset())
          .sum();
    } catch (Exception e) {
      return 0;
    }
  }

  private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"([0-9a-f]{32})\"");
  private static final Pattern VERTEX =
      Pattern.compile(
          "\\{\"id\":\"([0-9a-f]{32})\",\"slotSharingGroupId\"[^}]*?\"name\":\"([^\"]*)\"");
  private static final Pattern WATERMARK = Pattern.compile("\"value\"\\s*:\\s*\"(-?\\d+)\"");

  /** The aggregator's current input watermark from the Flink REST API. */
  private static java.util.Optional<Long> watermark(int webPort) {
    try {
      HttpClient http = HttpClient.newHttpClient();
      String base = "http://localhost:" + webPort;
      String jobs = get(http, base + "/jobs");
      Matcher job = ID.matcher(jobs);
      if (!job.find()) {
        return java.util.Optional.empty();
      }
      String detail = get(http, base + "/jobs/" + job.group(1));
      Matcher vertex = VERTEX.matcher(detail);
      while (vertex.find()) {
        if (vertex.group(2).contains("aggregate")) {
          String marks =
              get(
                  http,
                  base + "/jobs/" + job.group(1) + "/vertices/" + vertex.group(1) + "/watermarks");
          Matcher value = WATERMARK.matcher(marks);
          long min = Long.MAX_VALUE;
          while (value.find()) {
            min = Math.min(min, Long.parseLong(value.group(1)));
          }
          return min == Long.MAX_VALUE || min < 0
              ? java.util.Optional.empty()
              : java.util.Optional.of(min);
        }
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
    return java.util.Optional.empty();
  }

  private static String get(HttpClient http, String url) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(3)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
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

  private static Duration parseDuration(String text) {
    String t = text.trim().toLowerCase(java.util.Locale.ROOT);
    if (t.endsWith("m")) {
      return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
    }
    return Duration.ofSeconds(Long.parseLong(t.endsWith("s") ? t.substring(0, t.length() - 1) : t));
  }

  private static String indent(String text) {
    return "  " + text.replace("\n", "\n  ");
  }

  private static void say(String message) {
    System.out.println("[" + CLOCK.format(Instant.now()) + "] " + message);
  }
}
