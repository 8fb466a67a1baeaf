package dev.tally.bench;

import dev.tally.stack.LocalStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * Recovery of the Spark leg, live: in local mode the driver and its executor threads are one JVM,
 * so losing the process is losing the job, and the only way back is a new JVM on the same
 * checkpoint location (offsets, commit log, RocksDB state), as a cluster manager restarting the
 * driver would do. Each round kills the job's JVM ({@code kill -9}) while it processes live
 * traffic, starts it again at once, and measures kill → the first micro-batch after the kill that
 * read input rows has completed (its listener's progress line). After the traffic stops, the table
 * is compared key by key with what was produced, over every window the watermark has closed.
 */
final class SparkRecovery {

  private static final String TABLE = "spark_recovery";
  private static final Duration ROUND_TIMEOUT = Duration.ofMinutes(3);

  private final BenchOptions o;
  private final int kills;
  private final Path work;

  SparkRecovery(BenchOptions options, int kills, Path work) {
    this.o = options;
    this.kills = kills;
    this.work = work;
  }

  /** Loss to processing again over the kills; {@code wrong} when the table is not exact. */
  LatencyFigure figure() throws Exception {
    Bench.say("Starting the local stack under " + work);
    try (LocalStack stack = LocalStack.start(work.resolve("stack"))) {
      return figure(stack);
    }
  }

  /** {@link #figure()} on a running stack, on a topic and table of its own. */
  LatencyFigure figure(LocalStack stack) throws Exception {
    String topic = "bench-recovery-spark";
    stack.kafka().createTopic(topic, o.partitions, Map.of("retention.ms", "-1"));
    Path dir = Files.createDirectories(work.resolve("spark"));
    Path log = dir.resolve("job.log");
    LiveExpectation expected = new LiveExpectation(o.window.toMillis());
    MeasuredProcess process = start(stack, topic, dir, log);
    SparkJob.awaitStarted(process, log, Long.MIN_VALUE);
    LiveTraffic traffic =
        new LiveTraffic(
            stack.kafka().bootstrapServers(),
            topic,
            o.rate,
            o.seed,
            o.users,
            o.zipf,
            expected::add);
    Thread producer = new Thread(traffic, "live-traffic");
    producer.start();
    List<Long> losses = new ArrayList<>();
    String finalTable;
    try {
      Bench.say(
          String.format(
              Locale.ROOT,
              "Spark job running; producing %,d events/s; warming up for %d s",
              o.rate,
              o.warmup.toSeconds()));
      Thread.sleep(o.warmup.toMillis());
      long since = Long.MIN_VALUE;
      for (int round = 1; round <= kills; round++) {
        if (traffic.failure() != null) {
          throw new IllegalStateException("producing failed", traffic.failure());
        }
        // Kill only a job that is processing: a micro-batch with input since its last start.
        awaitProcessing(process, log, since);
        long killedAt = System.currentTimeMillis();
        process.kill(Duration.ofSeconds(30));
        process = start(stack, topic, dir, log);
        Optional<Long> processingAt = awaitProcessing(process, log, killedAt);
        long loss = processingAt.map(at -> at - killedAt).orElse(-1L);
        losses.add(loss);
        Bench.say(
            String.format(
                Locale.ROOT,
                "Spark round %d: kill -9 → processing again %s",
                round,
                loss < 0 ? "never (timed out)" : String.format(Locale.ROOT, "%.2f s", loss / 1e3)));
        since = killedAt;
      }
      traffic.stop();
      producer.join();
      long w = o.window.toMillis();
      long lastEnd = (System.currentTimeMillis() - o.outOfOrderness.toMillis() - 1_000) / w * w;
      Bench.say("Traffic stopped after " + traffic.produced() + " events; checking the table…");
      finalTable = awaitExact(stack, expected, lastEnd);
      Bench.say("Final table: " + finalTable);
    } finally {
      traffic.stop();
      producer.join();
      JobRuns.endLiveJob(process, dir);
    }
    List<Long> sorted = losses.stream().filter(v -> v >= 0).sorted().toList();
    return LatencyFigure.of(
        sorted,
        finalTable.startsWith(LiveExpectation.EXACT) && sorted.size() == losses.size(),
        String.format(
            Locale.ROOT,
            "process kill -9 → restarted on its checkpoint, first micro-batch with input done,"
                + " %d kills; final table %s",
            losses.size(),
            finalTable));
  }

  private MeasuredProcess start(LocalStack stack, String topic, Path dir, Path log)
      throws Exception {
    return MeasuredProcess.start(
        SparkJob.process(stack, dir, o.parallelism, SparkJob.liveArguments(o, topic, TABLE), log));
  }

  /** Waits for a completed micro-batch with input after {@code afterMillis}, at most a while. */
  private static Optional<Long> awaitProcessing(MeasuredProcess process, Path log, long afterMillis)
      throws Exception {
    long deadline = System.currentTimeMillis() + ROUND_TIMEOUT.toMillis();
    while (System.currentTimeMillis() < deadline) {
      Optional<Long> at = SparkJob.firstProgressWithInput(log, afterMillis);
      if (at.isPresent()) {
        return at;
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("the Spark job exited; see " + log);
      }
      Thread.sleep(50);
    }
    return Optional.empty();
  }

  /** Waits until every window ending by {@code lastEnd} is in the table; its verdict then. */
  private static String awaitExact(LocalStack stack, LiveExpectation expected, long lastEnd)
      throws InterruptedException {
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("bench-spark-recovery", stack.catalog().clientProperties());
    try (catalog) {
      long deadline = System.currentTimeMillis() + ROUND_TIMEOUT.toMillis();
      String verdict;
      do {
        verdict =
            expected.verdict(
                IcebergStats.rows(catalog, BenchContext.NAMESPACE, TABLE), lastEnd, lastEnd);
        if (verdict.startsWith(LiveExpectation.EXACT)) {
          return verdict;
        }
        Thread.sleep(2_000);
      } while (System.currentTimeMillis() < deadline);
      return verdict;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
