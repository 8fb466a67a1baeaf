package dev.tally.bench;

import dev.tally.stack.FlinkRestClient;
import dev.tally.stack.LocalStack;
import dev.tally.stack.LoopbackPorts;
import dev.tally.stack.TallyJobLauncher;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * Freshness in a live run: traffic at a fixed rate with event time = wall clock, short windows so
 * there are many, and for every window the time from its end to the commit that made its rows
 * readable in Iceberg.
 *
 * <p>How: the bench follows the table's snapshots; for each new one it reads the {@code
 * window_start} bounds of the data files that snapshot added (from the manifests, no data read),
 * and a window is readable at the commit time of the last snapshot holding its rows, compactions
 * ({@code replace} snapshots, which change no row) not counted (a window's rows can straddle two
 * commits when the subtasks fire it on either side of a checkpoint barrier). The commit time is the
 * snapshot's timestamp, written by the catalog on this same machine.
 *
 * <p>A row cannot be final before its window's end plus the watermark's out-of-orderness bound;
 * after that it waits for the next checkpoint to complete. So the target is p99 ≤ out-of-orderness
 * + checkpoint interval + 2 s.
 *
 * <p>The legs: Tally's job, the Spark job, and the SQL legs' scripts ({@link SqlLeg}) through the
 * job jar's SQL runner as the throughput run starts them, here unbounded, with the run's window and
 * out-of-orderness ({@code WINDOW_SIZE}, {@code OUT_OF_ORDERNESS}). The scripts read the seed's
 * fixed topic and write their fixed tables: the run empties that topic and drops that table first.
 */
final class Freshness {

  private static final String TALLY_TABLE = "tally_freshness";
  private static final String SPARK_TABLE = "spark_freshness";

  private final BenchOptions o;
  private final Path out;
  private final Path work;
  private final String leg;
  private final SqlLeg sql;
  private final String namespace;
  private final String table;

  /** Tally's job, as {@code ./bench.sh freshness} measures it. */
  Freshness(BenchOptions options, Path out, Path work) {
    this(options, out, work, "tally");
  }

  /**
   * @param leg {@code tally} (the job jar's {@code TallyMain --local}), {@code spark} (the Spark
   *     job, its micro-batch interval the checkpoint interval: each micro-batch commits once, as
   *     each checkpoint does), {@code sql} or {@code sql-same} (the script of that leg, {@code
   *     TallyMain sql --local --file ...})
   */
  Freshness(BenchOptions options, Path out, Path work, String leg) {
    this.sql =
        switch (leg) {
          case "tally", "spark" -> null;
          case "sql" -> SqlLeg.seed();
          case "sql-same" -> SqlLeg.sameSemantics();
          default -> throw new IllegalArgumentException("no live freshness run for leg " + leg);
        };
    this.o = options;
    this.out = out;
    this.work = work;
    this.leg = leg;
    this.namespace = sql == null ? BenchContext.NAMESPACE : SqlLeg.NAMESPACE;
    this.table = sql != null ? sql.table() : leg.equals("tally") ? TALLY_TABLE : SPARK_TABLE;
  }

  /**
   * What one live run measured: the freshness of each measured window (sorted), the windows that
   * never became readable, and the table's verdict against what was produced.
   */
  record Measured(List<Long> samples, int missing, String table) {
    boolean exact() {
      return missing == 0 && table.startsWith(LiveExpectation.EXACT);
    }
  }

  /** Refuses, before anything starts, a duration that measures no whole window. */
  static void validate(BenchOptions o) {
    // The first window measured starts at the first boundary after the warm-up and must end the
    // out-of-orderness before traffic stops: a shorter run measures nothing, after minutes.
    Duration shortest = o.warmup.plus(o.window.multipliedBy(2)).plus(o.outOfOrderness);
    if (o.duration.compareTo(shortest) < 0) {
      throw new IllegalArgumentException(
          "--duration "
              + o.duration.toSeconds()
              + "s measures no whole window: it must be at least --warmup + 2 x --window +"
              + " --out-of-orderness = "
              + shortest.toMillis()
              + " ms");
    }
  }

  void run() throws Exception {
    validate(o);
    Measured m = measure();
    List<Long> samples = m.samples();
    int missing = m.missing();
    long target = o.outOfOrderness.toMillis() + o.checkpointInterval.toMillis() + 2_000;
    String summary = summary(samples, missing, target) + " Table: " + m.table();
    Bench.say(summary);
    Files.createDirectories(out);
    Files.writeString(out.resolve("freshness.json"), json(samples, missing, target));
    Files.writeString(
        out.resolve("freshness.md"),
        summary + "\n\nmachine: " + Bench.machine() + "\n",
        StandardCharsets.UTF_8);
    Bench.say("Written " + out.resolve("freshness.json") + " and .md; logs under " + work);
  }

  /** This leg's figure for the compare run. */
  LatencyFigure figure() throws Exception {
    validate(o);
    return figure(measure());
  }

  private LatencyFigure figure(Measured m) {
    return LatencyFigure.of(
        m.samples(),
        m.exact(),
        String.format(
            Locale.ROOT,
            "%d windows of %d ms at %,d events/s, %d never readable; table %s",
            m.samples().size(),
            o.window.toMillis(),
            o.rate,
            m.missing(),
            m.table()));
  }

  /** One live run of the leg's job on a stack of its own. */
  Measured measure() throws Exception {
    Bench.say("Starting the local stack under " + work);
    try (LocalStack stack = LocalStack.start(work.resolve("stack"))) {
      return measure(stack);
    }
  }

  /** {@link #figure()} on a running stack, on a topic and table of this leg's own. */
  LatencyFigure figure(LocalStack stack) throws Exception {
    validate(o);
    return figure(measure(stack));
  }

  /** One live run of the leg's job on {@code stack}, on a topic and table of this leg's own. */
  Measured measure(LocalStack stack) throws Exception {
    String topic = sql == null ? "bench-live-" + leg : SqlLeg.TOPIC;
    if (sql != null) {
      // The script reads its fixed topic from the first offset: an empty one, so that it reads what
      // the traffic produces and nothing an earlier leg left there; and the seed's CREATE TABLE has
      // no IF NOT EXISTS, and an earlier leg's rows are not this run's.
      stack.kafka().deleteTopic(topic);
      try (RESTCatalog catalog = new RESTCatalog()) {
        catalog.initialize("bench-freshness-" + leg, stack.catalog().clientProperties());
        catalog.dropTable(TableIdentifier.of(namespace, table), true);
      }
    }
    stack.kafka().createTopic(topic, o.partitions, Map.of("retention.ms", "-1"));
    Path dir = Files.createDirectories(work.resolve(leg));
    Path log = dir.resolve("job.log");
    MeasuredProcess process = start(stack, topic, dir, log);
    try {
      Bench.say(
          String.format(
              Locale.ROOT,
              "Job %s running; producing %,d events/s for %d s (windows of %d ms, checkpoints"
                  + " every %d s, out-of-orderness %d ms)…",
              leg,
              o.rate,
              o.duration.toSeconds(),
              o.window.toMillis(),
              o.checkpointInterval.toSeconds(),
              o.outOfOrderness.toMillis()));
      // Live traffic is valid and unique (no duplicates, nothing late): the seed's SQL, without
      // dedupe, must count it exactly too, summed over the currencies.
      LiveExpectation expected =
          new LiveExpectation(o.window.toMillis(), sql == null || sql.byCurrency());
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
      long producing = System.currentTimeMillis();
      producer.start();
      RESTCatalog catalog = new RESTCatalog();
      catalog.initialize("bench", stack.catalog().clientProperties());
      TreeMap<Long, Long> readableAt = new TreeMap<>();
      Set<Long> seenSnapshots = new HashSet<>();
      long stopProducing = producing + o.duration.toMillis();
      long settle =
          o.checkpointInterval.toMillis()
              + o.outOfOrderness.toMillis()
              + o.window.toMillis()
              + 10_000;
      long lastReport = 0;
      while (System.currentTimeMillis() < stopProducing + settle && process.isAlive()) {
        if (System.currentTimeMillis() >= stopProducing) {
          traffic.stop();
        }
        follow(catalog, seenSnapshots, readableAt);
        if (System.currentTimeMillis() - lastReport >= 10_000) {
          lastReport = System.currentTimeMillis();
          Bench.say(
              String.format(
                  Locale.ROOT,
                  "produced %,d; %d commits; %d windows readable",
                  traffic.produced(),
                  seenSnapshots.size(),
                  readableAt.size()));
        }
        Thread.sleep(500);
      }
      traffic.stop();
      producer.join();
      follow(catalog, seenSnapshots, readableAt);
      // Windows wholly inside the measured span: after the warm-up and after the job's first
      // commit (its start-up, however long, is no window's freshness: the same for every leg), and
      // ending at least the out-of-orderness before traffic stopped. Event time is the wall clock
      // at sending, so a window ending later never sees the watermark pass its end: no event that
      // late is ever sent.
      long w = o.window.toMillis();
      long firstCommit = firstCommit(catalog);
      long from =
          Math.max(
              producing + o.warmup.toMillis(),
              firstCommit == Long.MAX_VALUE ? Long.MIN_VALUE : firstCommit);
      long firstStart = from / w * w + w;
      long lastEnd = stopProducing - o.outOfOrderness.toMillis();
      String verdict =
          expected.verdict(
              IcebergStats.rows(catalog, namespace, table), lastEnd / w * w, lastEnd / w * w);
      catalog.close();
      boolean died = !process.isAlive();
      JobRuns.endLiveJob(process, dir);
      if (died) {
        throw new IllegalStateException("the job died; see " + log);
      }
      if (traffic.failure() != null) {
        throw new IllegalStateException("producing failed", traffic.failure());
      }
      List<Long> samples = new ArrayList<>();
      int missing = 0;
      for (long start = firstStart; start + w <= lastEnd; start += w) {
        Long at = readableAt.get(start);
        if (at == null) {
          missing++;
        } else {
          samples.add(at - (start + w));
        }
      }
      samples.sort(null);
      return new Measured(samples, missing, verdict);
    } finally {
      // On every way out: a leg that throws must not leave its job running or its files.
      JobRuns.endLiveJob(process, dir);
    }
  }

  /** Starts the leg's live job and waits until it runs. */
  private MeasuredProcess start(LocalStack stack, String topic, Path dir, Path log)
      throws Exception {
    if (leg.equals("spark")) {
      MeasuredProcess process =
          MeasuredProcess.start(
              SparkJob.process(
                  stack, dir, o.parallelism, SparkJob.liveArguments(o, topic, table), log));
      SparkJob.awaitStarted(process, log, Long.MIN_VALUE);
      return process;
    }
    // The SQL legs: the Tally table named in the shared configuration is unused, the script names
    // its own; state backend, checkpoints and parallelism from it, as in the throughput run.
    Path config =
        JobRuns.writeConfig(
            dir,
            stack,
            topic,
            sql == null ? table : "sql_unused",
            o.parallelism,
            o.checkpointInterval);
    int webPort = LoopbackPorts.freePort();
    TallyJobLauncher job =
        sql == null
            ? TallyJobLauncher.of(config)
                .overrides(
                    List.of(
                        "aggregation.window-size=" + o.window.toMillis() + "ms",
                        "watermarks.out-of-orderness=" + o.outOfOrderness.toMillis() + "ms"))
            : TallyJobLauncher.of(config)
                .leadingArguments(List.of("sql", "--file", sql.script().toString()));
    Map<String, String> environment =
        sql == null
            ? stack.objectStore().awsClientEnvironment()
            : SqlLeg.liveEnvironment(stack, o.window, o.outOfOrderness);
    MeasuredProcess process =
        MeasuredProcess.start(
            JobRuns.locally(job, o.jobJar(), o.flinkLib(), webPort, dir, environment).process(log));
    JobRuns.awaitJobId(FlinkRestClient.onLoopback(webPort), process, log);
    return process;
  }

  /** The commit time of the table's first snapshot that added rows; {@code MAX_VALUE} if none. */
  private long firstCommit(RESTCatalog catalog) {
    TableIdentifier id = TableIdentifier.of(namespace, table);
    if (!catalog.tableExists(id)) {
      return Long.MAX_VALUE;
    }
    long first = Long.MAX_VALUE;
    for (Snapshot snapshot : catalog.loadTable(id).snapshots()) {
      if (!DataOperations.REPLACE.equals(snapshot.operation())
          && Long.parseLong(snapshot.summary().getOrDefault("added-records", "0")) > 0) {
        first = Math.min(first, snapshot.timestampMillis());
      }
    }
    return first;
  }

  /** Records, for each snapshot not seen yet, the windows whose rows its added data files hold. */
  private void follow(RESTCatalog catalog, Set<Long> seen, TreeMap<Long, Long> readableAt) {
    TableIdentifier id = TableIdentifier.of(namespace, table);
    if (!catalog.tableExists(id)) {
      return;
    }
    Table table = catalog.loadTable(id);
    // A timestamp with zone (Tally's, Spark's) or without (the SQL scripts', UTC here): either way
    // microseconds since the epoch.
    Types.NestedField windowStart = table.schema().findField("window_start");
    int field = windowStart.fieldId();
    long w = o.window.toMillis();
    for (Snapshot snapshot : table.snapshots()) {
      if (!seen.add(snapshot.snapshotId())) {
        continue;
      }
      if (DataOperations.REPLACE.equals(snapshot.operation())) {
        // Compaction: it rewrites rows that were readable already, and changes none.
        continue;
      }
      for (DataFile file :
          SnapshotChanges.builderFor(table).snapshot(snapshot).build().addedDataFiles()) {
        ByteBuffer lower = file.lowerBounds() == null ? null : file.lowerBounds().get(field);
        ByteBuffer upper = file.upperBounds() == null ? null : file.upperBounds().get(field);
        if (lower == null || upper == null) {
          continue;
        }
        long lo = (Long) Conversions.fromByteBuffer(windowStart.type(), lower) / 1000;
        long hi = (Long) Conversions.fromByteBuffer(windowStart.type(), upper) / 1000;
        for (long start = lo; start <= hi; start += w) {
          readableAt.merge(start, snapshot.timestampMillis(), Math::max);
        }
      }
    }
  }

  private String summary(List<Long> samples, int missing, long target) {
    if (samples.isEmpty()) {
      return "no window was measured (" + missing + " never became readable)";
    }
    long p99 = percentile(samples, 0.99);
    return String.format(
        Locale.ROOT,
        "Freshness (window end to rows readable in Iceberg) over %d windows of %d ms at %,d"
            + " events/s, parallelism %d: p50 %.1f s, p90 %.1f s, p99 %.1f s, max %.1f s;"
            + " %d windows never readable. Target p99 <= out-of-orderness %.1f s + checkpoint"
            + " interval %d s + 2 s = %.1f s: %s",
        samples.size(),
        o.window.toMillis(),
        o.rate,
        o.parallelism,
        percentile(samples, 0.5) / 1e3,
        percentile(samples, 0.9) / 1e3,
        p99 / 1e3,
        samples.get(samples.size() - 1) / 1e3,
        missing,
        o.outOfOrderness.toMillis() / 1e3,
        o.checkpointInterval.toSeconds(),
        target / 1e3,
        p99 <= target && missing == 0 ? "met" : "NOT met");
  }

  private String json(List<Long> samples, int missing, long target) {
    return String.format(
        Locale.ROOT,
        "{\"measured_at\": \"%s\", \"rate\": %d, \"parallelism\": %d, \"window_ms\": %d,"
            + " \"checkpoint_interval_ms\": %d, \"out_of_orderness_ms\": %d, \"windows\": %d,"
            + " \"missing\": %d, \"p50_ms\": %d, \"p90_ms\": %d, \"p99_ms\": %d, \"max_ms\": %d,"
            + " \"target_ms\": %d, \"samples_ms\": %s}%n",
        Instant.now(),
        o.rate,
        o.parallelism,
        o.window.toMillis(),
        o.checkpointInterval.toMillis(),
        o.outOfOrderness.toMillis(),
        samples.size(),
        missing,
        percentile(samples, 0.5),
        percentile(samples, 0.9),
        percentile(samples, 0.99),
        samples.isEmpty() ? -1 : samples.get(samples.size() - 1),
        target,
        samples);
  }

  /** Nearest-rank percentile of sorted samples; -1 when there are none. */
  static long percentile(List<Long> sorted, double p) {
    if (sorted.isEmpty()) {
      return -1;
    }
    int rank = (int) Math.ceil(p * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }
}
