package dev.tally.bench;

import dev.tally.adapters.iceberg.IcebergSinkConfig;
import dev.tally.runtime.topology.SpendingTopology;
import dev.tally.stack.FlinkRestClient;
import dev.tally.stack.HelpOption;
import dev.tally.stack.LatencyProxy;
import dev.tally.stack.LocalStack;
import dev.tally.stack.LoopbackPorts;
import dev.tally.stack.TallyJobLauncher;
import dev.tally.stack.TallyYaml;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine;

/**
 * Checkpoints under backpressure, where it happens in production: downstream of a network exchange.
 * The live job runs once per checkpoint {@link Mode}, on the same traffic, against one {@link
 * Fault}: slow Iceberg writers ({@link ThrottledTallyMain}, throttled in the writers' own tasks
 * behind the shuffle into them) or a slow object store (a {@link LatencyProxy} between the job and
 * S3Proxy). After the traffic, the checkpoint statistics come from Flink's REST API ({@code
 * /jobs/:id/checkpoints}); then the fault is lifted, the job reads the rest of the topic, stops
 * with a drain (every window closes and commits), and the table and the dead-letter topic are
 * compared with what was produced: nothing lost, nothing doubled.
 */
final class Backpressure {

  /**
   * By name, not by class literal: this JVM has no Flink, and only the job's JVM loads the class.
   */
  private static final String THROTTLED_MAIN = "dev.tally.bench.ThrottledTallyMain";

  /**
   * A TaskManager option, set on the local cluster by every mode but {@code defaults}: Tally's own
   * local cluster debloats ({@code JobConfig#applyLocalTo}), so the modes without it say so.
   */
  private static final String DEBLOAT = "taskmanager.network.memory.buffer-debloat.enabled=true";

  private static final String NO_DEBLOAT =
      "taskmanager.network.memory.buffer-debloat.enabled=false";
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(15);

  /**
   * What the sustained-backpressure verdict needs of the local cluster: the REST API serves a
   * subtask's counters as its metric fetcher last fetched them, and it fetches only when asked and
   * at most every {@code metrics.fetcher.update-interval} (Flink's default 10 s).
   */
  static final Map<String, String> MEASUREMENT =
      Map.of("metrics.fetcher.update-interval", "200 ms");

  /**
   * Longer than the fetch interval and a fetch: a read this long after the one that started a fetch
   * answers that fetch's figures.
   */
  private static final Duration FETCH_WAIT = Duration.ofSeconds(1);

  /** The name of Tally's spending sink (its uid suffix), which its writers' vertex carries. */
  private static final String SPENDING_SINK = IcebergSinkConfig.DEFAULT_UID_SUFFIX;

  /** What is slow. */
  enum Fault {
    /** Each spending writer subtask takes in at most {@code --throttle} rows a second. */
    WRITER,
    /** Every request to the object store arrives {@code --store-latency} late. */
    STORE;

    String cli() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** Reads {@code writer} or {@code store}. */
    static final class Converter implements CommandLine.ITypeConverter<Fault> {
      @Override
      public Fault convert(String text) {
        for (Fault fault : values()) {
          if (fault.cli().equals(text)) {
            return fault;
          }
        }
        throw new CommandLine.TypeConversionException("not writer or store: " + text);
      }
    }
  }

  /**
   * A checkpoint configuration: Tally's own keys as {@code --set} overrides, and the TaskManager
   * options that a cluster's configuration holds (a job cannot set them), given to the local
   * cluster.
   */
  enum Mode {
    ALIGNED("aligned", List.of("checkpoints.unaligned=false"), List.of(NO_DEBLOAT)),
    ALIGNED_DEBLOAT("aligned-debloat", List.of("checkpoints.unaligned=false"), List.of(DEBLOAT)),
    /** Unaligned, but a window end's timers all fire before a barrier is taken. */
    UNALIGNED_BLOCKING_TIMERS(
        "unaligned-blocking-timers",
        List.of(
            "checkpoints.unaligned=true",
            "checkpoints.aligned-timeout=0s",
            "checkpoints.interruptible-timers=false"),
        List.of(NO_DEBLOAT)),
    UNALIGNED(
        "unaligned",
        List.of(
            "checkpoints.unaligned=true",
            "checkpoints.aligned-timeout=0s",
            "checkpoints.interruptible-timers=true"),
        List.of(NO_DEBLOAT)),
    UNALIGNED_DEBLOAT(
        "unaligned-debloat",
        List.of(
            "checkpoints.unaligned=true",
            "checkpoints.aligned-timeout=0s",
            "checkpoints.interruptible-timers=true"),
        List.of(DEBLOAT)),
    /** Aligned first, unaligned once the barrier has waited 5 s. */
    ALIGNED_TIMEOUT_5S(
        "aligned-timeout-5s",
        List.of(
            "checkpoints.unaligned=true",
            "checkpoints.aligned-timeout=5s",
            "checkpoints.interruptible-timers=true"),
        List.of(NO_DEBLOAT)),
    /** Tally's defaults, nothing overridden. */
    DEFAULTS("defaults", List.of(), List.of());

    private final String cli;
    private final List<String> tallySettings;
    private final List<String> flinkSettings;

    Mode(String cli, List<String> tallySettings, List<String> flinkSettings) {
      this.cli = cli;
      this.tallySettings = tallySettings;
      this.flinkSettings = flinkSettings;
    }

    String cli() {
      return cli;
    }

    /** Reads a mode by its command-line name. */
    static final class Converter implements CommandLine.ITypeConverter<Mode> {
      @Override
      public Mode convert(String text) {
        for (Mode mode : values()) {
          if (mode.cli.equals(text)) {
            return mode;
          }
        }
        throw new CommandLine.TypeConversionException("not a checkpoint mode: " + text);
      }
    }
  }

  private final BenchOptions o;
  private final Map<String, String> clusterSettings;
  private final Path out;
  private final Path work;

  Backpressure(BenchOptions options, Map<String, String> clusterSettings, Path out, Path work) {
    this.o = options;
    this.clusterSettings = Map.copyOf(clusterSettings);
    this.out = out;
    this.work = work;
  }

  void run() throws Exception {
    Bench.say("Starting the local stack under " + work);
    List<Map<String, Object>> runs = new ArrayList<>();
    try (LocalStack stack = LocalStack.start(work.resolve("stack"))) {
      for (Mode mode : o.modes) {
        runs.add(once(stack, mode));
      }
    }
    String name = "backpressure-" + o.fault.cli();
    Files.createDirectories(out);
    Files.writeString(out.resolve(name + ".md"), markdown(runs));
    Files.writeString(out.resolve(name + ".json"), json(runs));
    System.out.println();
    System.out.println(markdown(runs));
    Bench.say("Written " + out.resolve(name + ".json") + " and .md; logs under " + work);
  }

  private String fault() {
    return o.fault == Fault.WRITER
        ? String.format(
            Locale.ROOT,
            "spending writers throttled to %,d rows/s per subtask (%,d rows/s in all)",
            o.throttle,
            (long) o.throttle * o.parallelism)
        : String.format(
                Locale.ROOT,
                "every object-store request delayed by %d ms",
                o.storeLatency.toMillis())
            + (o.storeBandwidth > 0
                ? String.format(
                    Locale.ROOT, ", the requests capped at %,d bytes/s in all", o.storeBandwidth)
                : "");
  }

  private String markdown(List<Map<String, Object>> runs) {
    StringBuilder md = new StringBuilder();
    md.append(
            String.format(
                Locale.ROOT,
                "Backpressure: %,d events/s for %d s, %s, windows of %d ms, checkpoints every %d"
                    + " s, parallelism %d.%n%n",
                o.rate,
                o.duration.toSeconds(),
                fault(),
                o.window.toMillis(),
                o.checkpointInterval.toSeconds(),
                o.parallelism))
        .append(
            "| checkpoints | completed | failed | end-to-end p50 ms | p99 ms | max ms |"
                + " persisted in-flight data max bytes | rows/s of the traffic's windows |"
                + " rows/s the writers took | sustained backpressure (sink <= 1/3 of input,"
                + " writers idle <= 20 %, aggregators backpressured >= 50 %, >= 180 s) |"
                + " output after drain |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for (Map<String, Object> r : runs) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s (%s) | %s |%n",
              r.get("mode"),
              r.get("completed"),
              r.get("failed"),
              r.get("e2e_p50_ms"),
              r.get("e2e_p99_ms"),
              r.get("e2e_max_ms"),
              r.get("persisted_max_bytes"),
              r.get("rows_per_second_in"),
              r.get("rows_per_second_taken"),
              r.get("sustained_backpressure"),
              r.get("sustained_figures"),
              r.get("output")));
    }
    return md.toString();
  }

  private String json(List<Map<String, Object>> runs) {
    StringBuilder json =
        new StringBuilder(
            "{\"measured_at\": \""
                + Instant.now()
                + "\", \"fault\": "
                + Report.quote(fault())
                + ", \"runs\": [");
    for (int i = 0; i < runs.size(); i++) {
      json.append(i == 0 ? "" : ", ").append('{');
      boolean first = true;
      for (Map.Entry<String, Object> e : runs.get(i).entrySet()) {
        json.append(first ? "" : ", ")
            .append(Report.quote(e.getKey()))
            .append(": ")
            .append(
                e.getValue() instanceof Number
                    ? e.getValue().toString()
                    : Report.quote(String.valueOf(e.getValue())));
        first = false;
      }
      json.append('}');
    }
    return json.append("]}\n").toString();
  }

  private Map<String, Object> once(LocalStack stack, Mode mode) throws Exception {
    String name = o.fault.cli() + "-" + mode.cli();
    String topic = "bench-backpressure-" + name;
    String table = "tally_bp_" + name.replace('-', '_');
    stack.kafka().createTopic(topic, o.partitions, Map.of("retention.ms", "-1"));
    Path dir = Files.createDirectories(work.resolve(name));
    Path lifted = dir.resolve("fault-lifted");
    List<String> leading = new ArrayList<>();
    if (o.fault == Fault.WRITER) {
      leading.addAll(
          List.of(
              "--writer-rows-per-second",
              Integer.toString(o.throttle),
              "--lifted-by",
              lifted.toString()));
    }
    for (String setting : mode.flinkSettings) {
      leading.addAll(List.of("--flink", setting));
    }
    MEASUREMENT.forEach((key, value) -> leading.addAll(List.of("--flink", key + "=" + value)));
    // Applied after the mode's own: the last value of a key wins on the local cluster.
    clusterSettings.forEach((key, value) -> leading.addAll(List.of("--flink", key + "=" + value)));
    List<String> overrides = new ArrayList<>(mode.tallySettings);
    overrides.add("aggregation.window-size=" + o.window.toMillis() + "ms");
    overrides.add("watermarks.out-of-orderness=" + o.outOfOrderness.toMillis() + "ms");
    int webPort = LoopbackPorts.freePort();
    FlinkRestClient rest = FlinkRestClient.onLoopback(webPort);
    Path log = dir.resolve("job.log");
    LiveTraffic traffic =
        new LiveTraffic(
            stack.kafka().bootstrapServers(),
            topic,
            o.rate,
            o.seed,
            o.users,
            o.zipf,
            o.window.toMillis());
    FlinkRestClient.CheckpointStatistics stats;
    FlinkRestClient.Counts before;
    SustainedBackpressure sustained;
    int exit;
    long proxied = -1;
    try (LatencyProxy proxy = o.fault == Fault.STORE ? storeProxy(stack) : null) {
      TallyYaml.Services services = stack.tallyServices();
      if (proxy != null) {
        services =
            new TallyYaml.Services(
                services.bootstrapServers(),
                services.catalogUri(),
                services.warehouse(),
                proxy.httpEndpoint(),
                services.region());
      }
      Path config =
          JobRuns.writeConfig(dir, services, topic, table, o.parallelism, o.checkpointInterval);
      TallyJobLauncher job =
          TallyJobLauncher.of(config).leadingArguments(leading).overrides(overrides);
      MeasuredProcess process =
          MeasuredProcess.start(
              JobRuns.locally(
                      job,
                      o.jobJar(),
                      o.flinkLib(),
                      webPort,
                      dir,
                      stack.objectStore().awsClientEnvironment())
                  .mainClass(THROTTLED_MAIN, throttledClasspath())
                  .process(log));
      try {
        String jobId = JobRuns.awaitJobId(rest, process, log);
        // Checkpoints triggered while tasks still deploy fail ("not being executed"): they are not
        // what is measured, so the traffic starts once every task runs, and the counts are taken
        // from there.
        while (!rest.job(jobId).allTasksRunning()) {
          if (!process.isAlive()) {
            throw new IllegalStateException("the job exited; see " + log);
          }
          Thread.sleep(500);
        }
        before = rest.checkpoints(jobId).counts();
        // The job's vertices: where the slow writers sit, behind which exchange.
        Files.writeString(dir.resolve("job.json"), rest.text("/jobs/" + jobId + "/plan"));
        String writers = writerVertex(rest.job(jobId));
        String aggregators = FlinkRestClient.vertexIdOfUid(SpendingTopology.AGGREGATOR_UID);
        List<SustainedBackpressure.Work> workBefore = freshWork(rest, jobId, writers, aggregators);
        long faultStarted = System.nanoTime();
        Bench.say(
            String.format(
                Locale.ROOT,
                "%s: producing %,d events/s for %d s, %s…",
                name,
                o.rate,
                o.duration.toSeconds(),
                fault()));
        Thread producer = new Thread(traffic, "live-traffic-" + name);
        producer.start();
        Thread.sleep(o.duration.toMillis());
        Files.writeString(
            dir.resolve("checkpoints.json"), rest.text("/jobs/" + jobId + "/checkpoints"));
        stats = rest.checkpoints(jobId);
        List<SustainedBackpressure.Work> workAfter = freshWork(rest, jobId, writers, aggregators);
        SustainedBackpressure.Work writersDid = workAfter.get(0).since(workBefore.get(0));
        sustained =
            new SustainedBackpressure(
                writersDid.readRecords(),
                traffic.expectedRows(),
                writersDid,
                workAfter.get(1).since(workBefore.get(1)),
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - faultStarted));
        // Per subtask (records in and out of each writer): how evenly the rows spread.
        saveVertices(rest, jobId, dir);
        traffic.stop();
        producer.join();
        if (traffic.failure() != null) {
          throw new IllegalStateException("producing failed", traffic.failure());
        }
        // The fault ends with the traffic: the backlog then drains at full speed.
        Files.createFile(lifted);
        if (proxy != null) {
          proxied = proxy.connections();
          proxy.latency(Duration.ZERO);
          proxy.bandwidth(0);
        }
        Bench.say(name + ": traffic and fault over; waiting for the job to read the backlog…");
        awaitCaughtUp(stack.kafka().bootstrapServers(), "tally-bench-" + table, topic, process);
        rest.stopWithDrain(jobId, dir.resolve("savepoints"));
        exit = process.await(DRAIN_TIMEOUT);
      } finally {
        JobRuns.endLiveJob(process, dir);
      }
    }

    IcebergStats written = IcebergStats.read(stack, table);
    long deadLetters = countCommitted(stack.kafka().bootstrapServers(), topic + ".dlq");
    boolean right =
        exit == 0
            && written.transactions() == traffic.produced()
            && written.amountSum() == traffic.amountSum()
            && written.rows() == traffic.expectedRows()
            && deadLetters == 0;
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("mode", mode.cli());
    result.put("completed", stats.counts().completed() - before.completed());
    result.put("failed", stats.counts().failed() - before.failed());
    Optional<FlinkRestClient.Statistics> e2e = stats.of("end_to_end_duration");
    result.put("e2e_p50_ms", e2e.map(e -> (long) e.p50()).orElse(-1L));
    result.put("e2e_p99_ms", e2e.map(e -> (long) e.p99()).orElse(-1L));
    result.put("e2e_max_ms", e2e.map(e -> (long) e.max()).orElse(-1L));
    result.put(
        "persisted_max_bytes", stats.of("persisted_data").map(p -> (long) p.max()).orElse(-1L));
    result.put("rows_per_second_in", traffic.expectedRows() / Math.max(1, o.duration.toSeconds()));
    result.put("rows_per_second_taken", sustained.sinkRows() / Math.max(1, sustained.seconds()));
    result.put("sink_share", Math.round(sustained.sinkShare() * 1000) / 1000.0);
    result.put("writers_busy_share", round(sustained.writers().busyShare()));
    result.put("writers_idle_share", round(sustained.writers().idleShare()));
    result.put(
        "aggregators_backpressured_share", round(sustained.aggregators().backpressuredShare()));
    result.put("sustained_backpressure", sustained.verdict());
    result.put("sustained_figures", sustained.figures());
    result.put(
        "output",
        String.format(
            Locale.ROOT,
            "%s: %,d rows of %,d, %,d transactions of %,d, amounts %s, %,d dead letters of 0%s",
            right ? "ok" : "WRONG",
            written.rows(),
            traffic.expectedRows(),
            written.transactions(),
            traffic.produced(),
            written.amountSum() == traffic.amountSum() ? "equal" : "DIFFER",
            deadLetters,
            exit == 0 ? "" : ", job exit code " + exit));
    result.put("exactly_once", right);
    result.put("produced", traffic.produced());
    result.put("expected_rows", traffic.expectedRows());
    if (proxied >= 0) {
      result.put("store_connections_proxied", proxied);
    }
    Bench.say(name + ": " + result);
    return result;
  }

  private static double round(double share) {
    return Math.round(share * 100) / 100.0;
  }

  /**
   * The spending writers' vertex: the Sink V2 writer of Tally's Iceberg sink, named after its uid
   * suffix (not the anomaly sink's, nor the dead letters').
   */
  static String writerVertex(FlinkRestClient.JobDetails job) {
    return job.vertices().stream()
        .filter(v -> v.name().contains(SPENDING_SINK) && v.name().contains("Writer"))
        .map(FlinkRestClient.Vertex::id)
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "no writer of "
                        + SPENDING_SINK
                        + " among the vertices "
                        + job.vertices().stream().map(FlinkRestClient.Vertex::name).toList()));
  }

  /**
   * The vertices' work as of now, not as of the metric fetcher's previous fetch: the first read
   * starts a fetch (of every metric at once) and answers the previous one's figures, a read {@link
   * #FETCH_WAIT} later answers the new one's.
   */
  private static List<SustainedBackpressure.Work> freshWork(
      FlinkRestClient rest, String jobId, String... vertices) throws InterruptedException {
    rest.vertex(jobId, vertices[0]);
    Thread.sleep(FETCH_WAIT.toMillis());
    List<SustainedBackpressure.Work> work = new ArrayList<>();
    for (String vertex : vertices) {
      work.add(SustainedBackpressure.Work.of(rest.vertex(jobId, vertex)));
    }
    return work;
  }

  private static void saveVertices(FlinkRestClient rest, String jobId, Path dir)
      throws IOException {
    String job = rest.text("/jobs/" + jobId);
    Files.writeString(dir.resolve("job-detail.json"), job);
    Matcher vertex = Pattern.compile("\"id\":\"([0-9a-f]{32})\"").matcher(job);
    Set<String> seen = new HashSet<>();
    while (vertex.find()) {
      String id = vertex.group(1);
      if (!id.equals(jobId) && seen.add(id)) {
        Files.writeString(
            dir.resolve("vertex-" + id + ".json"), rest.text("/jobs/" + jobId + "/vertices/" + id));
      }
    }
  }

  private LatencyProxy storeProxy(LocalStack stack) {
    URI store = URI.create(stack.objectStore().endpoint());
    LatencyProxy proxy = LatencyProxy.start(store.getHost(), store.getPort(), o.storeLatency);
    proxy.bandwidth(o.storeBandwidth);
    return proxy;
  }

  /**
   * Waits until the job's consumer group has committed the end offset of every partition: a
   * completed checkpoint covers everything produced.
   */
  private static void awaitCaughtUp(
      String bootstrap, String group, String topic, MeasuredProcess job) throws Exception {
    long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      List<TopicPartition> partitions =
          admin
              .describeTopics(List.of(topic))
              .allTopicNames()
              .get()
              .get(topic)
              .partitions()
              .stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      partitions.forEach(p -> latest.put(p, OffsetSpec.latest()));
      while (true) {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        var ends = admin.listOffsets(latest).all().get();
        boolean caughtUp =
            partitions.stream()
                .allMatch(
                    p ->
                        committed.get(p) != null
                            && committed.get(p).offset() == ends.get(p).offset());
        if (caughtUp) {
          return;
        }
        if (!job.isAlive()) {
          throw new IllegalStateException("the job exited before reading the whole topic");
        }
        if (System.nanoTime() - deadline > 0) {
          throw new TimeoutException("the job has not read the whole topic after " + DRAIN_TIMEOUT);
        }
        Thread.sleep(1_000);
      }
    }
  }

  /** Committed records in {@code topic} (0 when the topic does not exist). */
  private static long countCommitted(String bootstrap, String topic)
      throws InterruptedException, ExecutionException {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      if (!admin.listTopics().names().get().contains(topic)) {
        return 0;
      }
    }
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      long count = 0;
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("cannot read " + topic + " to its end");
        }
        count += consumer.poll(Duration.ofMillis(500)).count();
      }
      return count;
    }
  }

  /**
   * What the throttled main needs behind the job jar and the Flink libraries: the bench, picocli
   * and the stack's {@link HelpOption}.
   */
  private List<Path> throttledClasspath() {
    return List.of(o.benchClasses(), locationOf(CommandLine.class), locationOf(HelpOption.class));
  }

  private static Path locationOf(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate the jar of " + type.getName(), e);
    }
  }
}
