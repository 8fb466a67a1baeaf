package dev.tally.bench;

import dev.tally.runtime.topology.SpendingTopology;
import dev.tally.stack.FlinkCluster;
import dev.tally.stack.FlinkRestClient;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyJobLauncher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * Recovery from the loss of a TaskManager, on a real multi-process standalone cluster ({@link
 * FlinkCluster}) running the job jar with live traffic: round after round, the TaskManager running
 * tasks is killed ({@code kill -9} of its JVM) and the time to processing again measured, then a
 * replacement TaskManager is started so the next round has spare capacity again.
 *
 * <p>"Processing again" means records flowing, not just tasks {@code RUNNING}: every subtask of the
 * aggregator (the vertex behind the source's {@code keyBy}, so the records crossed the network) is
 * running a new attempt that has read records, as the TaskManagers' own Prometheus endpoints report
 * the attempt's {@code numRecordsIn} when asked ({@link TaskRecordsIn}), or the JobManager's REST
 * API its {@code read-records} (its metric fetcher runs every 200 ms in this cluster), whichever
 * shows it first. The loss splits into detection (kill to the failure in the job's exception
 * history), restart (to the job {@code RUNNING} again: the restart delay, the old tasks cancelled)
 * and deploy and restore (to processing: tasks deployed, RocksDB state restored, the Kafka readers
 * resumed). Catching up the backlog ends when the aggregator's watermark reaches what was produced
 * when processing resumed.
 *
 * <p>After each round the table is checked exact: every window its current snapshot marks final
 * ({@code tally.watermark}) holds exactly the sums of the events produced in it, key by key, and no
 * other key; at the end, every window that traffic closed.
 *
 * <p>The job is a parameter ({@link Job}): Tally's pipeline by default, or a SQL leg's script run
 * as a user runs it on a cluster ({@link SqlRecoveryJob}), each submitted with {@code flink run}
 * through {@link FlinkCluster#submit}, watched and checked its own way.
 */
final class Recovery {

  private static final Duration POLL = Duration.ofMillis(50);
  private static final Duration ROUND_TIMEOUT = Duration.ofMinutes(2);
  private static final String EXACT = LiveExpectation.EXACT;
  static final String BEHIND = "behind:";
  // The final check waits while the table's completeness marker moves, at most this long in all.
  private static final Duration FINAL_STALL = Duration.ofMinutes(1);
  private static final Duration FINAL_LIMIT = Duration.ofMinutes(5);
  private static final Duration RESET_BACKOFF = Duration.ofSeconds(20);

  /**
   * What the measurement itself needs of the cluster, so that the REST API shows a recovery within
   * a poll or two of when it happens:
   *
   * <ul>
   *   <li>{@code metrics.fetcher.update-interval}: the per-attempt counters fetched every 200 ms
   *       instead of Flink's default 10 s;
   *   <li>{@code web.refresh-interval}: the job's tasks, their attempts and states, are served from
   *       a copy of the execution graph that lives this long (default 3 s), so a new attempt
   *       running showed up to 3 s late;
   *   <li>{@code web.timeout}: the metric fetcher starts a fetch only when the previous one is
   *       done, and a metrics query in flight to a TaskManager when it is killed is answered by
   *       nobody: it ends at this timeout (default 10 minutes, during which no metric of any
   *       TaskManager was fresh and the bench saw no kill recover). It is also every REST handler's
   *       timeout for its call to the JobManager, hence a few seconds, not less.
   * </ul>
   */
  static final Map<String, String> MEASUREMENT =
      Map.of(
          "metrics.fetcher.update-interval", "200 ms",
          "web.refresh-interval", "100 ms",
          "web.timeout", "3 s");

  private final BenchOptions o;
  private final boolean classArchive;
  private final int kills;
  private final Map<String, String> clusterSettings;
  private final Path out;
  private final Path work;
  private final Job job;
  private final TaskRecordsIn recordsIn = new TaskRecordsIn();

  /**
   * The job the kills hit on the cluster: its command ({@code flink run <job jar> ...}), the vertex
   * whose subtasks must read records again, and its table's checks.
   */
  interface Job {

    /** The leg it is of: {@code tally}, {@code sql}, {@code sql-same}. */
    String leg();

    /** The topic it reads, and the traffic goes to. */
    String topic();

    /** Its watermark's bound on out-of-orderness: how far behind the newest event time it runs. */
    Duration outOfOrderness();

    /** What its table must hold of what the traffic produced: feed it every event sent. */
    LiveExpectation expected();

    /**
     * Gives it an empty topic (and no table), then submits it with {@code flink run}.
     *
     * @param overrides Tally settings ({@code --set}) the measurement needs of every job
     * @return the job's id
     */
    String submit(LocalStack stack, FlinkCluster cluster, Path dir, List<String> overrides)
        throws Exception;

    /** The vertex every subtask of which must read records again after a kill. */
    String watched(FlinkRestClient rest, String jobId);

    /** What {@link #watched} is, for the report. */
    String watchedName();

    /** Its table compared with {@link #expected()} now: "exact: ..." when it agrees. */
    String verdict(RESTCatalog catalog);

    /** After the traffic stopped at {@code stoppedAt}: the final verdict, once it is reached. */
    String finish(FlinkCluster cluster, String jobId, RESTCatalog catalog, long stoppedAt)
        throws Exception;
  }

  /** Kills under Tally's pipeline, onto standbys without a class archive. */
  Recovery(
      BenchOptions options, int kills, Map<String, String> clusterSettings, Path out, Path work) {
    this(options, kills, clusterSettings, out, work, null, false);
  }

  /**
   * Kills under {@code job}; Tally's pipeline when null.
   *
   * @param classArchive whether a class data sharing archive is trained before the first kill and
   *     the standbys start with it ({@link #trainClassArchive})
   */
  Recovery(
      BenchOptions options,
      int kills,
      Map<String, String> clusterSettings,
      Path out,
      Path work,
      Job job,
      boolean classArchive) {
    this.o = options;
    this.classArchive = classArchive;
    this.kills = kills;
    this.clusterSettings = Map.copyOf(clusterSettings);
    this.out = out;
    this.work = work;
    this.job = job == null ? new TallyJob() : job;
  }

  /** Tally's pipeline from the job jar, its table checked by its completeness marker. */
  private final class TallyJob implements Job {
    private static final String TABLE = "tally_recovery";
    private final LiveExpectation expected = new LiveExpectation(o.window.toMillis());

    @Override
    public String leg() {
      return "tally";
    }

    @Override
    public String topic() {
      return "bench-recovery";
    }

    @Override
    public Duration outOfOrderness() {
      return o.outOfOrderness;
    }

    @Override
    public LiveExpectation expected() {
      return expected;
    }

    @Override
    public String submit(LocalStack stack, FlinkCluster cluster, Path dir, List<String> common) {
      stack.kafka().createTopic(topic(), o.partitions, Map.of("retention.ms", "-1"));
      Path config =
          JobRuns.writeConfig(dir, stack, topic(), TABLE, o.parallelism, o.checkpointInterval);
      List<String> overrides = new ArrayList<>();
      overrides.add("aggregation.window-size=" + o.window.toMillis() + "ms");
      overrides.add("watermarks.out-of-orderness=" + o.outOfOrderness.toMillis() + "ms");
      overrides.addAll(common);
      overrides.addAll(o.tallySettings);
      return cluster.submit(
          o.jobJar(), o.parallelism, null, TallyJobLauncher.of(config).overrides(overrides));
    }

    @Override
    public String watched(FlinkRestClient rest, String jobId) {
      return FlinkRestClient.vertexIdOfUid(SpendingTopology.AGGREGATOR_UID);
    }

    @Override
    public String watchedName() {
      return "aggregator";
    }

    /**
     * The table compared key by key with the expectation, over the windows its current snapshot
     * marks final.
     */
    @Override
    public String verdict(RESTCatalog catalog) {
      return verdict(catalog, Long.MIN_VALUE);
    }

    @Override
    public String finish(FlinkCluster cluster, String jobId, RESTCatalog catalog, long stoppedAt)
        throws InterruptedException {
      long w = o.window.toMillis();
      // The last window whose every event was produced before traffic stopped, closed by the
      // watermark (largest event time minus the out-of-orderness) of the last events.
      long lastEnd = (stoppedAt - o.outOfOrderness.toMillis() - 1_000) / w * w;
      return awaitExact(catalog, lastEnd);
    }

    /**
     * Waits until the table marks every window ending by {@code lastEnd} final, as long as its
     * marker keeps moving: after a loss the job catches up a backlog, which can take minutes when
     * one TaskManager runs what two did. Its verdict: "exact ...", "WRONG ..." as soon as a window
     * marked final disagrees, or "behind ..." when the marker stopped short of {@code lastEnd} (or
     * {@link #FINAL_LIMIT} passed) with every window it marks final exact.
     */
    private String awaitExact(RESTCatalog catalog, long lastEnd) throws InterruptedException {
      long start = System.currentTimeMillis();
      long stalledBy = start + FINAL_STALL.toMillis();
      long mark = Long.MIN_VALUE;
      while (true) {
        IcebergStats.Rows table = IcebergStats.rows(catalog, BenchContext.NAMESPACE, TABLE);
        String verdict = verdict(table, lastEnd);
        long now = System.currentTimeMillis();
        if (table.watermark() > mark) {
          mark = table.watermark();
          stalledBy = now + FINAL_STALL.toMillis();
        }
        if (verdict.startsWith(EXACT) || verdict.startsWith(LiveExpectation.WRONG)) {
          return verdict;
        }
        if (now >= stalledBy || now - start >= FINAL_LIMIT.toMillis()) {
          return verdict.startsWith(LiveExpectation.NOT_YET_FINAL)
              ? BEHIND
                  + " "
                  + verdict.substring(LiveExpectation.NOT_YET_FINAL.length()).trim()
                  + String.format(
                      Locale.ROOT,
                      "; final only up to %s, %d s short of the last window closed by the"
                          + " traffic, after waiting %d s",
                      Instant.ofEpochMilli(mark),
                      (lastEnd - mark) / 1_000,
                      (now - start) / 1_000)
              : verdict;
        }
        Thread.sleep(2_000);
      }
    }

    /**
     * "exact ..." when the windows the current snapshot marks final agree and the snapshot covers
     * every window ending by {@code atLeast}.
     */
    private String verdict(RESTCatalog catalog, long atLeast) {
      return verdict(IcebergStats.rows(catalog, BenchContext.NAMESPACE, TABLE), atLeast);
    }

    private String verdict(IcebergStats.Rows table, long atLeast) {
      if (table.watermark() == Long.MIN_VALUE) {
        return "no commit yet";
      }
      return expected.verdict(table, table.watermark(), atLeast);
    }
  }

  /**
   * One kill: its phases in milliseconds (-1 when not reached) and the table's verdict after it.
   *
   * @param deploy of {@code deployAndRestore}: until every task of the job has its code loaded
   *     ({@code INITIALIZING}: the job jar fetched from the blob server, its class loader made)
   * @param restore of {@code deployAndRestore}: until every task is {@code RUNNING} (state
   *     restored, operators opened: Kafka readers, Iceberg writers, transactional producers)
   */
  record Round(
      int number,
      String victim,
      String cause,
      long detection,
      long restart,
      long deployAndRestore,
      long deploy,
      long restore,
      long lossToProcessing,
      long catchUp,
      String table) {

    /** The report's columns, in the order of {@link #cells()}: heading and JSON field. */
    static final Map<String, String> COLUMNS = columns();

    private static Map<String, String> columns() {
      Map<String, String> columns = new LinkedHashMap<>();
      columns.put("kill", "kill");
      columns.put("TaskManager", "task_manager");
      columns.put("loss → processing ms", "loss_to_processing_ms");
      columns.put("detection", "detection_ms");
      columns.put("restart", "restart_ms");
      columns.put("deploy+restore", "deploy_restore_ms");
      columns.put("(code loaded", "code_loaded_ms");
      columns.put("tasks running)", "tasks_running_ms");
      columns.put("catch-up", "catch_up_ms");
      columns.put("detected by", "detected_by");
      columns.put("table", "table");
      return columns;
    }

    /** This round's values, one per column of {@link #COLUMNS}. */
    List<Object> cells() {
      return List.of(
          number,
          victim,
          lossToProcessing,
          detection,
          restart,
          deployAndRestore,
          deploy,
          restore,
          catchUp,
          cause,
          table);
    }
  }

  /**
   * Measures and reports; throws when a round or the final table is not exact, or when the final
   * table is behind (it never caught up, so it was not checked whole).
   */
  void run() throws Exception {
    LatencyFigure figure = figure();
    if (figure.status().equals("behind")) {
      throw new IllegalStateException(
          "the table is behind (every window it marks final is exact, but it did not catch up):"
              + " "
              + figure.note());
    }
    if (!figure.status().equals("ok")) {
      throw new IllegalStateException("the table is not exact: " + figure.note());
    }
  }

  /**
   * Measures and reports ({@code recovery.{json,md}}); the figure is loss to processing again over
   * the kills, {@code wrong} when a round or the final table is not exact.
   */
  LatencyFigure figure() throws Exception {
    Bench.say("Starting the local stack under " + work);
    try (LocalStack stack = LocalStack.start(work.resolve("stack"))) {
      return figure(stack);
    }
  }

  /** {@link #figure()} on a running stack, with a Flink cluster of its own. */
  LatencyFigure figure(LocalStack stack) throws Exception {
    Map<String, String> settings = new LinkedHashMap<>(MEASUREMENT);
    settings.putAll(recordsIn.settings());
    settings.putAll(clusterSettings);
    int slots = 2;
    // FlinkCluster spreads a job's slots evenly over its TaskManagers (load-balance mode SLOTS),
    // so a TaskManager stays free only when there are more TaskManagers than the job has
    // subtasks: one per subtask and a standby, as slotmanager.redundant-taskmanager-num keeps one
    // in deploy/. Standalone has no resource manager to start one on demand, so the standby must
    // already run when a TaskManager is lost, and a replacement starts after each round. Every
    // kill then loses half of a job spread over two TaskManagers, the share one loss takes in
    // deploy/'s FlinkDeployment, and the job runs on as many TaskManagers after it as before.
    // With one TaskManager fewer the job ended up on a single new TaskManager from the second
    // kill on, fell behind the traffic, and later rounds measured a growing backlog.
    int taskManagers = o.parallelism + 1;
    Bench.say(
        "Starting a Flink cluster: 1 JobManager, "
            + taskManagers
            + " TaskManagers of "
            + slots
            + " slots; settings "
            + settings);
    try (FlinkCluster cluster =
        FlinkCluster.start(
            work.resolve("flink"),
            taskManagers,
            slots,
            stack.objectStore().awsClientEnvironment(),
            settings,
            classArchive)) {
      return run(stack, cluster);
    }
  }

  private LatencyFigure run(LocalStack stack, FlinkCluster cluster) throws Exception {
    Path dir = Files.createDirectories(work.resolve(job.leg()));
    // Each kill is measured as a loss of its own: with Tally's 1 h reset threshold the restart
    // delay would double from kill to kill (exponential delay), as it should for a flapping job.
    // A round lasts longer than this, so every restart waits restart.initial-backoff.
    List<String> overrides =
        List.of("restart.reset-backoff-threshold=" + RESET_BACKOFF.toMillis() + "ms");
    String jobId = job.submit(stack, cluster, dir, overrides);
    FlinkRestClient rest = cluster.rest();
    String watched = job.watched(rest, jobId);
    await("the job runs every task", () -> cluster.allTasksRunning(jobId));
    LiveTraffic traffic =
        new LiveTraffic(
            stack.kafka().bootstrapServers(),
            job.topic(),
            o.rate,
            o.seed,
            o.users,
            o.zipf,
            job.expected()::add);
    Thread producer = new Thread(traffic, "live-traffic");
    producer.start();
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("bench-recovery", stack.catalog().clientProperties());
    List<Round> rounds = new ArrayList<>();
    String finalTable;
    try (catalog) {
      Bench.say(
          String.format(
              Locale.ROOT,
              "Job %s running; producing %,d events/s; warming up for %d s",
              jobId,
              o.rate,
              o.warmup.toSeconds()));
      Thread.sleep(o.warmup.toMillis());
      await("a completed checkpoint", () -> cluster.completedCheckpoints(jobId) >= 1);
      if (classArchive) {
        trainClassArchive(cluster, jobId, watched);
      }
      for (int round = 1; round <= kills; round++) {
        failIfTrafficFailed(traffic);
        Round r = round(cluster, rest, jobId, watched, catalog, round);
        rounds.add(r);
        Bench.say(describe(r));
      }
      traffic.stop();
      producer.join();
      failIfTrafficFailed(traffic);
      long stoppedAt = System.currentTimeMillis();
      Bench.say("Traffic stopped after " + traffic.produced() + " events; checking the table…");
      finalTable = job.finish(cluster, jobId, catalog, stoppedAt);
      Bench.say("Final table: " + finalTable);
    } finally {
      traffic.stop();
      producer.join();
      try {
        if (!List.of("FINISHED", "CANCELED", "FAILED").contains(cluster.jobStatus(jobId))) {
          cluster.cancel(jobId);
        }
      } catch (RuntimeException e) {
        Bench.say("cancel failed: " + e.getMessage());
      }
    }
    return report(rounds, finalTable, traffic.produced());
  }

  /**
   * The training run of {@code --class-archive}: a TaskManager that has run the job through the
   * warm-up and a checkpoint dumps its classes. The dump pauses its JVM past the heartbeat timeout,
   * so the job fails over (to the standby, started without the archive); the trained TaskManager is
   * then stopped and a new standby started with the archive, as are the replacements of later
   * rounds. The kills land on TaskManagers started before it, but the tasks restart on one that has
   * it, which is what the archive is for. The rounds start once the job runs every task, has caught
   * up with the traffic and completed a checkpoint.
   */
  private void trainClassArchive(FlinkCluster cluster, String jobId, String watched)
      throws InterruptedException {
    int trained = firstRunningTheJob(cluster, jobId);
    long started = System.nanoTime();
    Path archive = cluster.archiveClasses(trained);
    long dumped = System.nanoTime();
    cluster.stopTaskManager(trained);
    cluster.startTaskManager();
    await("the job runs every task", () -> cluster.allTasksRunning(jobId));
    long backlogEnd = System.currentTimeMillis() - job.outOfOrderness().toMillis();
    // The pause and the failover leave a backlog of tens of seconds to read.
    await(
        "the job caught up after the training",
        FINAL_LIMIT,
        () -> cluster.rest().lowestInputWatermark(jobId, watched).orElse(0L) >= backlogEnd);
    long checkpoints = cluster.completedCheckpoints(jobId);
    await(
        "a checkpoint after the training", () -> cluster.completedCheckpoints(jobId) > checkpoints);
    Bench.say(
        String.format(
            Locale.ROOT,
            "Class archive %s (%,d bytes) dumped from %s in %d ms; it was replaced by a standby"
                + " with the archive; the job runs on %s",
            archive,
            archive.toFile().length(),
            cluster.taskManagerId(trained),
            (dumped - started) / 1_000_000,
            cluster.taskManagersOf(jobId)));
  }

  /** The first live TaskManager, in start order, that runs tasks of the job. */
  private static int firstRunningTheJob(FlinkCluster cluster, String jobId) {
    Set<String> hosting = cluster.taskManagersOf(jobId);
    for (int i = 0; i < cluster.taskManagers().size(); i++) {
      if (cluster.taskManagers().get(i).isAlive() && hosting.contains(cluster.taskManagerId(i))) {
        return i;
      }
    }
    throw new IllegalStateException("no live TaskManager runs tasks of the job: " + hosting);
  }

  private Round round(
      FlinkCluster cluster,
      FlinkRestClient rest,
      String jobId,
      String watched,
      RESTCatalog catalog,
      int number)
      throws InterruptedException {
    int victim = firstRunningTheJob(cluster, jobId);
    Map<Integer, Integer> attempts = new HashMap<>();
    rest.vertex(jobId, watched).subtasks().forEach(s -> attempts.put(s.index(), s.attempt()));
    long checkpoints = cluster.completedCheckpoints(jobId);
    recordsIn.discover();
    long killedAt = System.currentTimeMillis();
    cluster.killTaskManager(victim);

    long processingAt = -1;
    long deadline = killedAt + ROUND_TIMEOUT.toMillis();
    while (System.currentTimeMillis() < deadline) {
      // The TaskManagers' own counters first: the REST API's lag its metric fetcher's.
      if (recordsIn.processing(jobId, watched, attempts)
          || processing(rest, jobId, watched, attempts)) {
        processingAt = System.currentTimeMillis();
        break;
      }
      Thread.sleep(POLL.toMillis());
    }
    FlinkRestClient.JobDetails job = rest.job(jobId);
    long running =
        job.lastTransitionTo("RUNNING") > killedAt ? job.lastTransitionTo("RUNNING") : -1;
    Optional<FlinkRestClient.Failure> failure =
        rest.failures(jobId).stream()
            .filter(f -> f.timestamp() >= killedAt)
            .reduce((newer, older) -> older);
    long detectedAt =
        failure.map(FlinkRestClient.Failure::timestamp).orElse(job.lastTransitionTo("RESTARTING"));
    String cause = failure.map(FlinkRestClient.Failure::summary).orElse("?");
    long initialized = -1;
    long allRunning = -1;
    for (FlinkRestClient.Vertex vertex : job.vertices()) {
      for (Map<String, Long> times : rest.subtaskTimes(jobId, vertex.id())) {
        initialized = Math.max(initialized, times.getOrDefault("INITIALIZING", -1L));
        allRunning = Math.max(allRunning, times.getOrDefault("RUNNING", -1L));
      }
    }

    long caughtUpAt = -1;
    if (processingAt > 0) {
      long backlogEnd = processingAt - this.job.outOfOrderness().toMillis();
      while (System.currentTimeMillis() < processingAt + ROUND_TIMEOUT.toMillis()) {
        Optional<Long> mark = rest.lowestInputWatermark(jobId, watched);
        if (mark.isPresent() && mark.get() >= backlogEnd) {
          caughtUpAt = System.currentTimeMillis();
          break;
        }
        Thread.sleep(POLL.toMillis());
      }
    }
    String victimId = cluster.taskManagerId(victim);
    Bench.say("After the kill the job runs on " + cluster.taskManagersOf(jobId));
    // The replacement comes after the measurement: a TaskManager starting competes for the CPU.
    cluster.startTaskManager();
    // The next round restores from a checkpoint taken after this one's recovery.
    await(
        "a checkpoint after the recovery", () -> cluster.completedCheckpoints(jobId) > checkpoints);
    String table = this.job.verdict(catalog);
    return new Round(
        number,
        victimId,
        cause,
        between(killedAt, detectedAt),
        between(detectedAt, running),
        processingAt < 0 ? -1 : between(running, processingAt),
        between(running, initialized),
        between(initialized, allRunning),
        processingAt < 0 ? -1 : processingAt - killedAt,
        caughtUpAt < 0 ? -1 : caughtUpAt - processingAt,
        table);
  }

  /**
   * Every subtask runs an attempt newer than before the kill, and that attempt has read records;
   * false while the REST API fails to answer (a handler's call to the JobManager timing out at
   * {@code web.timeout} while it restarts the job), so that the next poll asks again.
   */
  private static boolean processing(
      FlinkRestClient rest, String jobId, String watched, Map<Integer, Integer> before) {
    FlinkRestClient.VertexDetails vertex;
    try {
      vertex = rest.vertex(jobId, watched);
    } catch (RuntimeException e) {
      return false;
    }
    return !vertex.subtasks().isEmpty()
        && vertex.subtasks().stream()
            .allMatch(
                s ->
                    s.attempt() > before.getOrDefault(s.index(), -1)
                        && "RUNNING".equals(s.status())
                        && s.readRecords() > 0);
  }

  private static long between(long from, long to) {
    return from > 0 && to >= from ? to - from : -1;
  }

  private static void failIfTrafficFailed(LiveTraffic traffic) {
    if (traffic.failure() != null) {
      throw new IllegalStateException("producing failed", traffic.failure());
    }
  }

  private static void await(String what, Check condition) throws InterruptedException {
    await(what, ROUND_TIMEOUT, condition);
  }

  private static void await(String what, Duration timeout, Check condition)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeout.toMillis();
    while (!condition.holds()) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(200);
    }
  }

  /** A condition polled by {@link #await}. */
  private interface Check {
    boolean holds();
  }

  private String describe(Round r) {
    return String.format(
        Locale.ROOT,
        "Kill %d of %s: processing again after %d ms (detection %d, restart %d, deploy and"
            + " restore %d: code loaded %d, tasks running %d later); backlog caught up %d ms"
            + " later; detected by: %s; table %s",
        r.number(),
        r.victim(),
        r.lossToProcessing(),
        r.detection(),
        r.restart(),
        r.deployAndRestore(),
        r.deploy(),
        r.restore(),
        r.catchUp(),
        r.cause(),
        r.table());
  }

  private LatencyFigure report(List<Round> rounds, String finalTable, long produced)
      throws Exception {
    String summary =
        String.format(
            Locale.ROOT,
            "Recovery of %s from TaskManager loss (kill -9) over %d kills, %,d events/s,"
                + " parallelism %d,"
                + " checkpoints every %d s: loss to processing p50 %s, p95 %s, max %s;"
                + " detection p50 %s, restart p50 %s, deploy and restore p50 %s (code loaded"
                + " p50 %s, tasks running p50 %s after); backlog caught"
                + " up p50 %s after; %d of %d rounds exact after the kill; final table %s."
                + " Targets p50 <= 2 s, p95 <= 4 s: %s",
            job.leg(),
            rounds.size(),
            o.rate,
            o.parallelism,
            o.checkpointInterval.toSeconds(),
            seconds(rounds, Round::lossToProcessing, 0.5),
            seconds(rounds, Round::lossToProcessing, 0.95),
            seconds(rounds, Round::lossToProcessing, 1.0),
            seconds(rounds, Round::detection, 0.5),
            seconds(rounds, Round::restart, 0.5),
            seconds(rounds, Round::deployAndRestore, 0.5),
            seconds(rounds, Round::deploy, 0.5),
            seconds(rounds, Round::restore, 0.5),
            seconds(rounds, Round::catchUp, 0.5),
            rounds.stream().filter(r -> r.table().startsWith(EXACT)).count(),
            rounds.size(),
            finalTable,
            met(rounds) ? "met" : "NOT met");
    StringBuilder md = new StringBuilder(summary).append("\n\n");
    md.append("| ")
        .append(String.join(" | ", Round.COLUMNS.keySet()))
        .append(" |\n|")
        .append("---|".repeat(Round.COLUMNS.size()))
        .append('\n');
    for (Round r : rounds) {
      md.append("| ");
      md.append(
          r.cells().stream()
              .map(cell -> cell.toString().replace("|", "\\|"))
              .collect(Collectors.joining(" | ")));
      md.append(" |\n");
    }
    md.append("\ncluster settings: ")
        .append(clusterSettings)
        .append("; job settings: ")
        .append(o.tallySettings)
        .append("; class archive: ")
        .append(classArchive ? "trained after the warm-up" : "none")
        .append("; events produced: ")
        .append(produced)
        .append("\n\nmachine: ")
        .append(Bench.machine())
        .append('\n');
    Bench.say(summary);
    Files.createDirectories(out);
    // Tally's figure keeps its files' names; another leg's carry its name.
    String name = job.leg().equals("tally") ? "recovery" : "recovery-" + job.leg();
    Files.writeString(out.resolve(name + ".md"), md, StandardCharsets.UTF_8);
    Files.writeString(
        out.resolve(name + ".json"), json(rounds, finalTable), StandardCharsets.UTF_8);
    Files.writeString(work.resolve(name + ".md"), md, StandardCharsets.UTF_8);
    Bench.say("Written " + out.resolve(name + ".json") + " and .md; logs under " + work);
    boolean roundsExact =
        rounds.stream().allMatch(r -> r.table().startsWith(EXACT) && r.lossToProcessing() >= 0);
    LatencyFigure figure =
        LatencyFigure.of(
            sorted(rounds, Round::lossToProcessing).stream().filter(v -> v >= 0).toList(),
            roundsExact && finalTable.startsWith(EXACT),
            String.format(
                Locale.ROOT,
                "TaskManager kill -9 → every %s subtask processing again, %d kills; final table %s",
                job.watchedName(),
                rounds.size(),
                finalTable));
    return classified(figure, roundsExact, finalTable);
  }

  /**
   * {@code figure}, {@code behind} instead of {@code wrong} when the only fault is a final table
   * that is behind: every round was exact and so is every window the table marks final, but it did
   * not reach the last window the traffic closed. A window that disagrees keeps it wrong.
   */
  static LatencyFigure classified(LatencyFigure figure, boolean roundsExact, String finalTable) {
    return roundsExact && finalTable.startsWith(BEHIND) && figure.status().equals("wrong")
        ? figure.withStatus("behind")
        : figure;
  }

  private static boolean met(List<Round> rounds) {
    List<Long> sorted = sorted(rounds, Round::lossToProcessing);
    return rounds.size() >= 10
        && sorted.stream().noneMatch(v -> v < 0)
        && Freshness.percentile(sorted, 0.5) <= 2_000
        && Freshness.percentile(sorted, 0.95) <= 4_000;
  }

  private static List<Long> sorted(List<Round> rounds, ToLongFunction<Round> phase) {
    return rounds.stream().map(r -> phase.applyAsLong(r)).sorted().toList();
  }

  private static String seconds(List<Round> rounds, ToLongFunction<Round> phase, double p) {
    List<Long> measured = sorted(rounds, phase).stream().filter(v -> v >= 0).toList();
    if (measured.isEmpty()) {
      return "n/a";
    }
    return String.format(Locale.ROOT, "%.2f s", Freshness.percentile(measured, p) / 1e3);
  }

  private String json(List<Round> rounds, String finalTable) {
    List<String> keys = List.copyOf(Round.COLUMNS.values());
    String each =
        rounds.stream()
            .map(
                r -> {
                  List<Object> cells = r.cells();
                  List<String> fields = new ArrayList<>();
                  for (int i = 0; i < keys.size(); i++) {
                    Object cell = cells.get(i);
                    fields.add(
                        "\""
                            + keys.get(i)
                            + "\": "
                            + (cell instanceof String text ? "\"" + escape(text) + "\"" : cell));
                  }
                  return "{" + String.join(", ", fields) + "}";
                })
            .collect(Collectors.joining(",\n    "));
    List<Long> loss = sorted(rounds, Round::lossToProcessing);
    return String.format(
        Locale.ROOT,
        "{\"measured_at\": \"%s\", \"leg\": \"%s\", \"rate\": %d, \"parallelism\": %d,"
            + " \"checkpoint_interval_ms\": %d, \"cluster_settings\": \"%s\","
            + " \"job_settings\": \"%s\", \"class_archive\": %b, \"p50_ms\": %d, \"p95_ms\": %d, \"max_ms\": %d,"
            + " \"final_table\": \"%s\",%n  \"rounds\": [%n    %s]}%n",
        Instant.now(),
        job.leg(),
        o.rate,
        o.parallelism,
        o.checkpointInterval.toMillis(),
        escape(clusterSettings.toString()),
        escape(o.tallySettings.toString()),
        classArchive,
        Freshness.percentile(loss, 0.5),
        Freshness.percentile(loss, 0.95),
        loss.isEmpty() ? -1 : loss.get(loss.size() - 1),
        escape(finalTable),
        each);
  }

  private static String escape(String text) {
    return text.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
