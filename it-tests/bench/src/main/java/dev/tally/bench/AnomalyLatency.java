package dev.tally.bench;

import dev.tally.it.oracle.SpendingDataset;
import dev.tally.stack.FlinkRestClient;
import dev.tally.stack.LocalStack;
import dev.tally.stack.LoopbackPorts;
import dev.tally.stack.TallyJobLauncher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Alert latency, live: Tally's job with anomalies on reads {@code --rate} events/s of {@link
 * LiveTraffic} (event time = the wall clock at sending), and after {@code --warmup} of it also
 * {@value #SPIKES_PER_SECOND} spikes a second for {@code --duration}, each of a user of its own
 * with a full 7-day baseline preloaded before the job starts; a {@code read_committed} consumer of
 * the anomaly topic times each spike's alert. Once per {@code anomalies.kafka.delivery} asked for,
 * {@code exactly-once} and {@code at-least-once} by default, each with a job of its own; {@code
 * --tally-set} overrides reach every job.
 *
 * <p>What is measured: alert visible to the consumer − the spike's source record timestamp (= its
 * event time = its send time). The contract decides a transaction once the watermark reaches the
 * start of its hour; no spike is sent in the first {@code out-of-orderness + 5 s} of an hour, so
 * the watermark has passed its hour's start when it arrives, and its send time is the moment it can
 * be decided. Targets: p99 ≤ checkpoint interval + 1 s exactly once (alerts are committed with the
 * checkpoint), p99 &lt; 200 ms at least once.
 */
final class AnomalyLatency {

  /** Spikes sent a second. */
  static final int SPIKES_PER_SECOND = 10;

  private static final long HOUR = 3_600_000L;
  private static final long DAY = 24 * HOUR;
  private static final int BASELINE = 30;
  private static final Pattern TRANSACTION_ID = Pattern.compile("\"transaction_id\":\"([^\"]+)\"");

  /** The deliveries a run may measure, and their order by default. */
  static final List<String> DELIVERIES = List.of("exactly-once", "at-least-once");

  private final BenchOptions o;
  private final List<String> deliveries;
  private final Duration warmup;
  private final Path out;
  private final Path work;

  AnomalyLatency(
      BenchOptions options, List<String> deliveries, Duration warmup, Path out, Path work) {
    this.o = options;
    this.deliveries = List.copyOf(deliveries);
    this.warmup = warmup;
    this.out = out;
    this.work = work;
  }

  /**
   * One delivery's samples and what went missing.
   *
   * @param samples the latencies, ascending
   * @param series each measured spike's send time (ms after the first spike) and latency, in the
   *     order sent, so that a tail can be placed in the run (start-up, a checkpoint, a compaction)
   * @param firstSent the first spike's send time (epoch ms), which places {@code series} against
   *     the job's own clock: its log and its checkpoints' trigger timestamps in the REST API
   */
  record Run(
      String delivery,
      List<Long> samples,
      List<long[]> series,
      long firstSent,
      int sent,
      int missing,
      long target) {

    String summary() {
      if (samples.isEmpty()) {
        return delivery + ": no alert was measured (" + sent + " spikes sent)";
      }
      long p99 = Freshness.percentile(samples, 0.99);
      return String.format(
          Locale.ROOT,
          "%s: %d spikes, %d alerts never seen; spike sent → alert visible to a read_committed"
              + " consumer: p50 %d ms, p90 %d ms, p99 %d ms, max %d ms; target p99 %s %d ms: %s",
          delivery,
          sent,
          missing,
          Freshness.percentile(samples, 0.5),
          Freshness.percentile(samples, 0.9),
          p99,
          samples.get(samples.size() - 1),
          delivery.equals("exactly-once") ? "≤" : "<",
          target,
          (delivery.equals("exactly-once") ? p99 <= target : p99 < target) && missing == 0
              ? "met"
              : "NOT met");
    }
  }

  void run() throws Exception {
    Bench.say("Starting the local stack under " + work);
    List<Run> runs = new ArrayList<>();
    try (LocalStack stack = LocalStack.start(work.resolve("stack"))) {
      for (String delivery : deliveries) {
        long target =
            delivery.equals("exactly-once") ? o.checkpointInterval.toMillis() + 1_000 : 200;
        runs.add(measure(stack, delivery, target));
      }
    }
    StringBuilder md = new StringBuilder();
    for (Run r : runs) {
      Bench.say(r.summary());
      md.append("- ").append(r.summary()).append('\n');
    }
    md.append(
        String.format(
            Locale.ROOT,
            "%nlive traffic %,d events/s, parallelism %d, checkpoints every %d s,"
                + " out-of-orderness %d ms, warm-up %d s, spikes for %d s, Tally overrides %s%n%n"
                + "machine: %s%n",
            o.rate,
            o.parallelism,
            o.checkpointInterval.toSeconds(),
            o.outOfOrderness.toMillis(),
            warmup.toSeconds(),
            o.duration.toSeconds(),
            o.tallySettings,
            Bench.machine()));
    Files.createDirectories(out);
    Files.writeString(out.resolve("anomaly-latency.md"), md, StandardCharsets.UTF_8);
    StringBuilder json = new StringBuilder("{\"runs\": [");
    for (int i = 0; i < runs.size(); i++) {
      Run r = runs.get(i);
      json.append(i == 0 ? "" : ", ")
          .append(
              String.format(
                  Locale.ROOT,
                  "{\"delivery\": %s, \"sent\": %d, \"missing\": %d, \"p50_ms\": %d,"
                      + " \"p99_ms\": %d, \"target_ms\": %d, \"samples_ms\": %s,"
                      + " \"first_sent_epoch_ms\": %d, \"series_sent_ms_latency_ms\": %s}",
                  Report.quote(r.delivery()),
                  r.sent(),
                  r.missing(),
                  Freshness.percentile(r.samples(), 0.5),
                  Freshness.percentile(r.samples(), 0.99),
                  r.target(),
                  r.samples(),
                  r.firstSent(),
                  r.series().stream()
                      .map(p -> "[" + p[0] + ", " + p[1] + "]")
                      .collect(java.util.stream.Collectors.joining(", ", "[", "]"))));
    }
    Files.writeString(out.resolve("anomaly-latency.json"), json.append("]}\n"));
    Bench.say("Written " + out.resolve("anomaly-latency.md") + " and .json; logs under " + work);
  }

  private Run measure(LocalStack stack, String delivery, long target) throws Exception {
    String topic = "bench-anomalies-" + delivery;
    String alerts = topic + ".anomalies";
    stack.kafka().createTopic(topic, o.partitions, Map.of("retention.ms", "-1"));
    stack.kafka().createTopic(alerts, o.partitions, Map.of("retention.ms", "-1"));
    int spikes = (int) (o.duration.toSeconds() * SPIKES_PER_SECOND);
    long started = System.currentTimeMillis();
    preloadBaselines(stack.kafka().bootstrapServers(), topic, spikes, started);
    Path dir = Files.createDirectories(work.resolve(delivery));
    Path config =
        JobRuns.writeConfig(
            dir,
            stack,
            topic,
            "tally_" + delivery.replace('-', '_'),
            o.parallelism,
            o.checkpointInterval);
    int webPort = LoopbackPorts.freePort();
    List<String> overrides =
        new ArrayList<>(
            List.of(
                "kafka.source.startup-mode=earliest",
                "watermarks.out-of-orderness=" + o.outOfOrderness.toMillis() + "ms",
                "anomalies.enabled=true",
                "anomalies.table="
                    + BenchContext.NAMESPACE
                    + ".anomalies_"
                    + delivery.replace('-', '_'),
                "anomalies.kafka.topic=" + alerts,
                "anomalies.kafka.delivery=" + delivery));
    overrides.addAll(o.tallySettings);
    TallyJobLauncher job = TallyJobLauncher.of(config).overrides(overrides);
    Path log = dir.resolve("job.log");
    MeasuredProcess process =
        MeasuredProcess.start(
            JobRuns.locally(
                    job,
                    o.jobJar(),
                    o.flinkLib(),
                    webPort,
                    dir,
                    stack.objectStore().awsClientEnvironment())
                .process(log));
    try (KafkaConsumer<byte[], byte[]> consumer =
        consumer(stack.kafka().bootstrapServers(), alerts)) {
      JobRuns.awaitJobId(FlinkRestClient.onLoopback(webPort), process, log);
      Bench.say(
          String.format(
              Locale.ROOT,
              "%s: job running; %,d events/s for %d s of warm-up, then with %d spikes/s for %d s…",
              delivery,
              o.rate,
              warmup.toSeconds(),
              SPIKES_PER_SECOND,
              o.duration.toSeconds()));
      LiveTraffic traffic =
          new LiveTraffic(stack.kafka().bootstrapServers(), topic, o.rate, o.seed, o.users, o.zipf);
      Thread background = new Thread(traffic, "live-traffic");
      background.start();
      Map<String, Long> sentAt = new ConcurrentHashMap<>();
      Map<String, Long> seenAt = new ConcurrentHashMap<>();
      try (KafkaProducer<byte[], byte[]> producer =
          Preloader.producer(stack.kafka().bootstrapServers(), 0)) {
        // Spikes only after the warm-up: what is measured is the job's steady state, not its
        // start (JIT, the first checkpoints, the preloaded baselines still being read).
        long warm = System.currentTimeMillis() + warmup.toMillis();
        while (System.currentTimeMillis() < warm && process.isAlive()) {
          poll(consumer, seenAt);
        }
        long first = System.currentTimeMillis();
        long stop = first + o.duration.toMillis();
        long quiet = o.outOfOrderness.toMillis() + 5_000;
        int next = 0;
        long due = first;
        while (System.currentTimeMillis() < stop && process.isAlive()) {
          long now = System.currentTimeMillis();
          if (now >= due && next < spikes) {
            due += 1_000 / SPIKES_PER_SECOND;
            if (Math.floorMod(now, HOUR) < quiet) {
              continue; // its hour's start may not have been reached by the watermark yet
            }
            String id = "spike-" + next;
            String user = "alert-" + next;
            producer.send(
                new ProducerRecord<>(
                    topic, null, now, bytes(user), bytes(json(id, user, 10_000_000, now))));
            sentAt.put(id, now);
            next++;
          }
          poll(consumer, seenAt);
        }
        traffic.stop();
        background.join();
        long settle = System.currentTimeMillis() + o.checkpointInterval.toMillis() + 10_000;
        while (System.currentTimeMillis() < settle && seenAt.size() < sentAt.size()) {
          poll(consumer, seenAt);
        }
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("the job died; see " + log);
      }
      if (traffic.failure() != null) {
        throw new IllegalStateException("producing failed", traffic.failure());
      }
      List<Long> samples = new ArrayList<>();
      List<long[]> series = new ArrayList<>();
      long firstSent = sentAt.values().stream().mapToLong(Long::longValue).min().orElse(0);
      int missing = 0;
      for (Map.Entry<String, Long> e : sentAt.entrySet()) {
        Long seen = seenAt.get(e.getKey());
        if (seen == null) {
          missing++;
        } else {
          samples.add(seen - e.getValue());
          series.add(new long[] {e.getValue() - firstSent, seen - e.getValue()});
        }
      }
      samples.sort(null);
      series.sort((a, b) -> Long.compare(a[0], b[0]));
      return new Run(delivery, samples, series, firstSent, sentAt.size(), missing, target);
    } finally {
      JobRuns.endLiveJob(process, dir);
    }
  }

  /**
   * For each spike's own user, {@value #BASELINE} normal amounts (10,000 to 12,000 cents, EUR) in
   * the 7 days before the current hour, so that every spike has a full baseline in any hour of the
   * run, and no other transaction of that user.
   */
  private static void preloadBaselines(String bootstrap, String topic, int users, long now) {
    SplittableRandom random = new SplittableRandom(7);
    long hour = now - Math.floorMod(now, HOUR);
    long from = hour - 6 * DAY;
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int u = 0; u < users; u++) {
      String user = "alert-" + u;
      for (int i = 0; i < BASELINE; i++) {
        long t = from + random.nextLong(6 * DAY - HOUR);
        long amount = 10_000 + random.nextInt(2_001);
        records.add(
            new ProducerRecord<>(
                topic, null, t, bytes(user), bytes(json("b-" + u + "-" + i, user, amount, t))));
      }
    }
    // In event-time order, so no partition's event time goes back.
    records.sort((a, b) -> Long.compare(a.timestamp(), b.timestamp()));
    try (KafkaProducer<byte[], byte[]> producer = Preloader.producer(bootstrap, 50)) {
      records.forEach(producer::send);
      producer.flush();
    }
  }

  private static void poll(KafkaConsumer<byte[], byte[]> consumer, Map<String, Long> seenAt) {
    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(10))) {
      long now = System.currentTimeMillis();
      Matcher m = TRANSACTION_ID.matcher(new String(r.value(), StandardCharsets.UTF_8));
      if (m.find()) {
        seenAt.putIfAbsent(m.group(1), now);
      }
    }
  }

  private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String topic) {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("key.deserializer", ByteArrayDeserializer.class.getName());
    props.put("value.deserializer", ByteArrayDeserializer.class.getName());
    props.put("isolation.level", "read_committed");
    props.put("enable.auto.commit", "false");
    props.put("fetch.max.wait.ms", "10");
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic).stream()
            .map(p -> new TopicPartition(topic, p.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    return consumer;
  }

  private static String json(String id, String user, long amount, long eventTime) {
    return SpendingDataset.sqlFormJson(id, user, amount, "EUR", eventTime);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
