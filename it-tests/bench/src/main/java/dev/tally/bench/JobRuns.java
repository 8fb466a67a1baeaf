package dev.tally.bench;

import dev.tally.stack.FlinkRestClient;
import dev.tally.stack.LocalStack;
import dev.tally.stack.LoopbackPorts;
import dev.tally.stack.TallyJobLauncher;
import dev.tally.stack.TallyYaml;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * How the bench runs Tally's job: the stack's {@link TallyJobLauncher} starts it as production code
 * runs it, the job jar's {@code TallyMain --local} on the job jar and the Flink libraries a cluster
 * would provide, in its own JVM measured by {@link MeasuredProcess}; the job's REST API says when
 * it was submitted. The bench's settings go in a YAML file and {@code --set} overrides, as a user's
 * would.
 */
final class JobRuns {

  /** A leg's job JVM's {@code java.io.tmpdir}, under the leg's directory. */
  private static final String JOB_TEMP = "tmp";

  private JobRuns() {}

  /**
   * The configuration every bench run of the job shares; runs add {@code --set} overrides.
   *
   * @param table the output table, in namespace {@link BenchContext#NAMESPACE}
   */
  static Path writeConfig(
      Path dir, LocalStack stack, String topic, String table, int parallelism, Duration interval) {
    return writeConfig(dir, stack.tallyServices(), topic, table, parallelism, interval);
  }

  /** The Kafka consumer group of the source of a job writing {@code table}. */
  static String groupId(String table) {
    return "tally-bench-" + table;
  }

  /**
   * As {@link #writeConfig(Path, LocalStack, String, String, int, Duration)}, on other services.
   */
  static Path writeConfig(
      Path dir,
      TallyYaml.Services services,
      String topic,
      String table,
      int parallelism,
      Duration interval) {
    return TallyYaml.builder(services)
        .topic(topic)
        .groupId(groupId(table))
        .transactionalIdPrefix("tally-bench-" + table)
        .table(table)
        .set("iceberg.namespace", BenchContext.NAMESPACE)
        .checkpointDirectory(dir.resolve("checkpoints"))
        .checkpointInterval(interval)
        .jobName("tally-bench-" + table)
        .parallelism(parallelism)
        .writeTo(dir.resolve("tally.yaml"));
  }

  /**
   * The job's JVM for a leg in {@code dir}: its REST API on {@code webPort}, its temporary files
   * (the MiniCluster's RocksDB instances, which a job stopped with SIGTERM leaves behind) under
   * {@code dir}, where {@link #endLiveJob} and {@link #runLeg} delete them.
   */
  static TallyJobLauncher.LocalRun locally(
      TallyJobLauncher job,
      Path jobJar,
      Path flinkLib,
      int webPort,
      Path dir,
      Map<String, String> environment) {
    return job.locally(jobJar, flinkLib)
        .webPort(webPort)
        .temporaryDirectory(dir.resolve(JOB_TEMP))
        .environment(environment);
  }

  /**
   * Runs a bounded job to its end, measured; the processing time runs from the job's submission
   * (its REST API's {@code start-time}) to the exit of its JVM.
   */
  static Finished runToEnd(ProcessBuilder job, FlinkRestClient rest, Path log)
      throws IOException, InterruptedException {
    return runToEnd(job, rest, log, JobWatch.NONE);
  }

  /** {@link #runToEnd(ProcessBuilder, FlinkRestClient, Path)}, {@code watch} following the job. */
  static Finished runToEnd(ProcessBuilder job, FlinkRestClient rest, Path log, JobWatch watch)
      throws IOException, InterruptedException {
    MeasuredProcess process = MeasuredProcess.start(job);
    Optional<Long> submitted = Optional.empty();
    while (process.isAlive() && submitted.isEmpty()) {
      submitted = rest.onlyJob().map(FlinkRestClient.JobOverview::startTime);
      Thread.sleep(100);
    }
    Thread watching = new Thread(() -> watch.follow(rest, process), "job-watch");
    watching.setDaemon(true);
    watching.start();
    int exit = process.await(Duration.ofHours(2));
    watching.join();
    double processing =
        submitted
            .map(start -> (process.exitedEpochMillis() - start) / 1e3)
            .orElse(process.wall().toMillis() / 1e3);
    return new Finished(process, exit, processing, log);
  }

  /** Waits until the live job's REST API names its job; throws if its JVM exits first. */
  static String awaitJobId(FlinkRestClient rest, MeasuredProcess process, Path log)
      throws InterruptedException {
    while (true) {
      Optional<FlinkRestClient.JobOverview> job = rest.onlyJob();
      if (job.isPresent()) {
        return job.get().id();
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("the job exited; see " + log);
      }
      Thread.sleep(200);
    }
  }

  /** A finished job leg: its process, exit code, processing seconds and log. */
  record Finished(MeasuredProcess process, int exit, double processingSeconds, Path log) {

    /**
     * The leg's result with this run's measurements, checked against the workload; the job's CPU
     * time by thread group goes to {@code thread-cpu.md} next to its log.
     */
    /** The job's CPU time by thread group, per record, to {@code thread-cpu.md} next to its log. */
    void writeThreadCpu(String name, long records) throws IOException {
      Files.writeString(
          log.resolveSibling("thread-cpu.md"),
          "CPU time of the "
              + name
              + " leg's job JVM by thread, at its last sample before exit (docs/benchmarks.md):\n\n"
              + process.threads().markdown(records));
    }

    LegResult result(String name, BenchContext context, IcebergStats table, long expectedRows)
        throws IOException {
      writeThreadCpu(name, table.transactions());
      boolean right =
          table.transactions() == context.events()
              && table.amountSum() == context.expectedAmountSum()
              && table.rows() == expectedRows;
      String note =
          String.format(
              "table: %,d rows (expected %,d), transaction_count sums to %,d (expected %,d),"
                  + " total_spent_cents %s the generator's sum",
              table.rows(),
              expectedRows,
              table.transactions(),
              context.events(),
              table.amountSum() == context.expectedAmountSum() ? "equals" : "DIFFERS FROM");
      return new LegResult(
          name,
          right ? "ok" : "wrong",
          note,
          table.transactions(),
          processingSeconds,
          process.wall().toMillis() / 1e3,
          process.cpu().toMillis() / 1e3,
          process.peakRssBytes() / 1048576.0,
          table.commits(),
          table.dataFiles(),
          table.deleteFiles());
    }
  }

  /**
   * One bounded job leg of a throughput run, from the job jar's {@code TallyMain} in its own JVM
   * with the run's shared configuration ({@code <work>/<leg>/tally.yaml}), measured by {@link
   * #runToEnd}; its log is {@code <work>/<leg>/job.log}.
   *
   * @param table the Tally table name written into the configuration
   * @param leading a subcommand and its arguments, or none for Tally's pipeline
   */
  static Finished runLeg(
      BenchContext context,
      String leg,
      String table,
      List<String> leading,
      List<String> overrides,
      Map<String, String> environment)
      throws IOException, InterruptedException {
    return runLeg(context, leg, table, leading, overrides, environment, JobWatch.NONE);
  }

  /** {@link #runLeg(BenchContext, String, String, List, List, Map)}, {@code watch} following it. */
  static Finished runLeg(
      BenchContext context,
      String leg,
      String table,
      List<String> leading,
      List<String> overrides,
      Map<String, String> environment,
      JobWatch watch)
      throws IOException, InterruptedException {
    Path dir = Files.createDirectories(context.work().resolve(leg));
    Path config =
        writeConfig(
            dir,
            context.stack(),
            context.topic(),
            table,
            context.parallelism(),
            context.checkpointInterval());
    int webPort = LoopbackPorts.freePort();
    TallyJobLauncher job =
        TallyJobLauncher.of(config).leadingArguments(leading).overrides(overrides);
    Path log = dir.resolve("job.log");
    ProcessBuilder process =
        locally(job, context.jobJar(), context.flinkLib(), webPort, dir, environment)
            .jvmOptions(jfrOptions(context, dir, leg))
            .process(log);
    try {
      return runToEnd(process, FlinkRestClient.onLoopback(webPort), log, watch);
    } finally {
      deleteJobTemp(dir);
    }
  }

  /**
   * Ends a live leg's job on every way out of the leg: stops it if it still runs (SIGTERM, then
   * kill after 30 s) and deletes its temporary directory.
   */
  static void endLiveJob(MeasuredProcess process, Path dir)
      throws IOException, InterruptedException {
    try {
      if (process.isAlive()) {
        process.stop(Duration.ofSeconds(30));
      }
    } finally {
      deleteJobTemp(dir);
    }
  }

  /** Deletes what a leg's job JVM left in its temporary directory (see {@link #locally}). */
  private static void deleteJobTemp(Path dir) throws IOException {
    Path temp = dir.resolve(JOB_TEMP);
    if (!Files.exists(temp)) {
      return;
    }
    try (Stream<Path> files = Files.walk(temp)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }

  /** With {@code --jfr}: a flight recording of the leg's JVM, {@code <dir>/<leg>.jfr}. */
  static List<String> jfrOptions(BenchContext context, Path dir, String leg) {
    return context.jfr()
        ? List.of("-XX:StartFlightRecording=settings=profile,filename=" + dir.resolve(leg + ".jfr"))
        : List.of();
  }
}
