package dev.tally.bench;

import dev.tally.stack.LocalStack;
import dev.tally.stack.LoopbackPorts;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.util.FileUtils;

/**
 * Starts Tally's job as production code runs it, the job jar's {@code TallyMain --local} on the job
 * jar and the Flink libraries a cluster would provide, in its own JVM; and reads the job's REST
 * API. The bench's settings go in a YAML file and {@code --set} overrides, as a user's would.
 */
public final class TallyJobLauncher {

  /** A leg's job JVM's {@code java.io.tmpdir}, under the leg's directory. */
  private static final String JOB_TEMP = "tmp";

  static final String MAIN = "dev.tally.runtime.TallyMain";
  private static final Pattern START_TIME = Pattern.compile("\"start-time\"\\s*:\\s*(\\d+)");
  private static final Pattern JOB_ID = Pattern.compile("\"jid\"\\s*:\\s*\"([0-9a-f]{32})\"");

  private final HttpClient http = HttpClient.newHttpClient();
  private final int webPort;

  TallyJobLauncher(int webPort) {
    this.webPort = webPort;
  }

  /**
   * The configuration every bench run of the job shares; runs add {@code --set} overrides.
   *
   * @param table the output table, in namespace {@link BenchContext#NAMESPACE}
   */
  static Path writeConfig(
      Path dir, LocalStack stack, String topic, String table, int parallelism, Duration interval)
      throws IOException {
    return TallyYaml.builder(stack.tallyServices())
        .topic(topic)
        .groupId("tally-bench-" + table)
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
   * The command line of one job run.
   *
   * @param extraClasspath bench classes to add behind the job jar (a bench-only main), or null
   * @param main {@link #MAIN} or a bench-only main with the same arguments
   * @param leading arguments before the common ones: a subcommand, a bench main's own argument
   */
  List<String> command(
      Path dir,
      Path jobJar,
      Path flinkLib,
      Path extraClasspath,
      String main,
      List<String> leading,
      Path config,
      List<String> overrides,
      List<String> jvmOptions)
      throws IOException {
    List<String> command = new ArrayList<>(List.of(BenchContext.java(), "-Xmx2g", "-XX:+UseG1GC"));
    command.addAll(jvmOptions);
    // The job's MiniCluster keeps its RocksDB instances under java.io.tmpdir, and a live leg
    // stopped with SIGTERM leaves them behind (about 100 MB a run): keep them in the leg's
    // directory, which deleteJobTemp empties after the leg.
    command.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve(JOB_TEMP)));
    command.add("-Dlog4j2.configurationFile=" + writeLogConfig(dir).toUri());
    String classpath = jobJar + File.pathSeparator + flinkLib.resolve("*");
    if (extraClasspath != null) {
      classpath += File.pathSeparator + extraClasspath;
    }
    command.addAll(List.of("-cp", classpath, main));
    command.addAll(leading);
    command.addAll(List.of("--local", "--web-port"));
    command.add(Integer.toString(webPort));
    command.addAll(List.of("--config", config.toString()));
    for (String override : overrides) {
      command.addAll(List.of("--set", override));
    }
    return command;
  }

  /**
   * Runs a bounded job to its end, measured; the processing time runs from the job's submission
   * (its REST API's {@code start-time}) to the exit of its JVM.
   */
  Finished runToEnd(List<String> command, Map<String, String> environment, Path log)
      throws IOException, InterruptedException {
    MeasuredProcess process = MeasuredProcess.start(command, environment, log);
    Optional<Long> submitted = Optional.empty();
    while (process.isAlive() && submitted.isEmpty()) {
      submitted = jobStartMillis();
      Thread.sleep(100);
    }
    int exit = process.await(Duration.ofHours(2));
    double processing =
        submitted
            .map(start -> (process.exitedEpochMillis() - start) / 1e3)
            .orElse(process.wall().toMillis() / 1e3);
    return new Finished(process, exit, processing, log);
  }

  /** A finished job leg: its process, exit code, processing seconds and log. */
  record Finished(MeasuredProcess process, int exit, double processingSeconds, Path log) {

    /** The leg's result with this run's measurements, checked against the workload. */
    LegResult result(String name, BenchContext context, IcebergStats table, long expectedRows) {
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
   * One bounded job leg of a throughput run, from the job jar's {@link #MAIN} in its own JVM with
   * the run's shared configuration ({@code <work>/<leg>/tally.yaml}), measured by {@link
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
    Path dir = Files.createDirectories(context.work().resolve(leg));
    Path config =
        writeConfig(
            dir,
            context.stack(),
            context.topic(),
            table,
            context.parallelism(),
            context.checkpointInterval());
    TallyJobLauncher job = new TallyJobLauncher(LoopbackPorts.freePort());
    List<String> command =
        job.command(
            dir,
            context.jobJar(),
            context.flinkLib(),
            null,
            MAIN,
            leading,
            config,
            overrides,
            jfrOptions(context, dir, leg));
    try {
      return job.runToEnd(command, environment, dir.resolve("job.log"));
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

  /** Deletes what a leg's job JVM left in its temporary directory (see {@link #command}). */
  private static void deleteJobTemp(Path dir) throws IOException {
    FileUtils.deleteDirectory(dir.resolve(JOB_TEMP).toFile());
  }

  /** With {@code --jfr}: a flight recording of the leg's JVM, {@code <dir>/<leg>.jfr}. */
  static List<String> jfrOptions(BenchContext context, Path dir, String leg) {
    return context.jfr()
        ? List.of("-XX:StartFlightRecording=settings=profile,filename=" + dir.resolve(leg + ".jfr"))
        : List.of();
  }

  /** The id of the (single) job, once it is submitted. */
  Optional<String> jobId() {
    return get("/jobs/overview").flatMap(body -> first(JOB_ID, body));
  }

  /** When the job was submitted, epoch milliseconds, once it is. */
  Optional<Long> jobStartMillis() {
    return get("/jobs/overview").flatMap(body -> first(START_TIME, body)).map(Long::parseLong);
  }

  /** The body of a GET on the job's REST API, or empty while it does not answer. */
  Optional<String> get(String path) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + webPort + path))
                  .timeout(Duration.ofSeconds(3))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static Optional<String> first(Pattern pattern, String body) {
    Matcher matcher = pattern.matcher(body);
    return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
  }

  /**
   * Writes the job JVM's log4j configuration into {@code dir}: INFO for Flink and Tally, quiet
   * clients. Shared with the demo.
   */
  public static Path writeLogConfig(Path dir) throws IOException {
    Path file = dir.resolve("job-log4j2.properties");
    Files.writeString(
        file,
        """
        rootLogger.level = INFO
        rootLogger.appenderRef.out.ref = out
        appender.out.type = Console
        appender.out.name = out
        appender.out.layout.type = PatternLayout
        appender.out.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n
        logger.kafka.name = org.apache.kafka
        logger.kafka.level = WARN
        logger.iceberg.name = org.apache.iceberg
        logger.iceberg.level = WARN
        logger.hadoop.name = org.apache.hadoop
        logger.hadoop.level = ERROR
        """,
        StandardCharsets.UTF_8);
    return file;
  }
}
