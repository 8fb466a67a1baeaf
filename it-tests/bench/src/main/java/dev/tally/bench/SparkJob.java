package dev.tally.bench;

import dev.tally.stack.LocalStack;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the bench starts it-tests/bench-spark's {@code SparkSpendingJob}: in its own JVM, on the
 * class path that module's build lists ({@code tally-stack/spark.classpath} under its classes,
 * {@code tally.spark.classes}), never on the bench's own, with the JVM options Spark's launcher
 * passes on JDK 17 and the same heap and collector as the Flink legs' JVMs.
 */
final class SparkJob {

  /** The job's main class, in it-tests/bench-spark. */
  static final String MAIN = "dev.tally.bench.spark.SparkSpendingJob";

  /** What Spark's launcher opens on JDK 17 (its {@code JavaModuleOptions}). */
  private static final List<String> MODULE_OPTIONS =
      List.of(
          "-XX:+IgnoreUnrecognizedVMOptions",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED",
          "--add-opens=java.base/java.net=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/java.util=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
          "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
          "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
          "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
          "-Djdk.reflect.useDirectMethodHandle=false",
          "-Dio.netty.tryReflectionSetAccessible=true");

  private static final Pattern STARTED = Pattern.compile("^tally-spark started (\\d+)$");
  private static final Pattern PROGRESS =
      Pattern.compile("^tally-spark progress (\\d+) (\\d+) (\\d+)$");

  private SparkJob() {}

  /** The module's classes directory. */
  static Path classes() {
    return Path.of(System.getProperty("tally.spark.classes", "it-tests/bench-spark/target/classes"))
        .toAbsolutePath()
        .normalize();
  }

  private static Path classpathFile() {
    return classes().resolve("tally-stack").resolve("spark.classpath");
  }

  /** Why the job cannot run in this build, or {@code null} when it can. */
  static String unavailable() {
    return Files.isRegularFile(classpathFile())
        ? null
        : "not built: no "
            + classpathFile()
            + " (build with -Pspark; ./bench.sh adds it for a spark leg and for compare)";
  }

  /**
   * The job's JVM, not started: its output and errors go to {@code log}.
   *
   * @param arguments the job's own options besides the services' ({@code --topics}, {@code
   *     --table}, {@code --bounded}, ...)
   */
  static ProcessBuilder process(
      LocalStack stack, Path dir, int cores, List<String> arguments, Path log) throws IOException {
    String classpath =
        classes()
            + File.pathSeparator
            + Files.readString(classpathFile(), StandardCharsets.UTF_8).trim();
    List<String> command = new ArrayList<>(List.of(BenchContext.java(), "-Xmx2g", "-XX:+UseG1GC"));
    command.addAll(MODULE_OPTIONS);
    command.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")));
    command.addAll(List.of("-cp", classpath, MAIN));
    command.addAll(
        List.of(
            "--bootstrap-servers",
            stack.kafka().bootstrapServers(),
            "--namespace",
            BenchContext.NAMESPACE,
            "--cores",
            Integer.toString(cores),
            "--checkpoint-location",
            dir.resolve("checkpoint").toUri().toString()));
    stack
        .catalog()
        .clientProperties()
        .forEach((k, v) -> command.addAll(List.of("--catalog-property", k + "=" + v)));
    command.addAll(arguments);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().putAll(stack.objectStore().awsClientEnvironment());
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return builder;
  }

  /**
   * The job's options for a live run of {@code o}'s traffic: its window, the out-of-orderness as
   * the watermark delay, a micro-batch every checkpoint interval (each commits once, as each Flink
   * checkpoint does), and batches of at most twice what one interval brings, so that a query
   * restarted on a backlog catches up in bounded batches, as a production query would be set up.
   */
  static List<String> liveArguments(BenchOptions o, String topic, String table) {
    return List.of(
        "--topics",
        topic,
        "--table",
        table,
        "--window",
        interval(o.window),
        "--watermark",
        interval(o.outOfOrderness),
        "--trigger",
        interval(o.checkpointInterval),
        "--max-offsets-per-trigger",
        Long.toString(2L * o.rate * Math.max(1, o.checkpointInterval.toSeconds())));
  }

  /** Spark's interval form of a duration, e.g. {@code 5000 milliseconds}. */
  static String interval(Duration d) {
    return d.toMillis() + " milliseconds";
  }

  /** When the query started (epoch ms), from the job's log; empty before it has. */
  static OptionalLong started(Path log) throws IOException {
    OptionalLong last = OptionalLong.empty();
    for (String line : lines(log)) {
      Matcher m = STARTED.matcher(line);
      if (m.matches()) {
        last = OptionalLong.of(Long.parseLong(m.group(1)));
      }
    }
    return last;
  }

  /**
   * Waits until the job's query has started after {@code afterMillis} (its log says so); throws if
   * its JVM exits first.
   *
   * @return when it started, epoch ms
   */
  static long awaitStarted(MeasuredProcess process, Path log, long afterMillis)
      throws IOException, InterruptedException {
    while (true) {
      OptionalLong started = started(log);
      if (started.isPresent() && started.getAsLong() > afterMillis) {
        return started.getAsLong();
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("the Spark job exited; see " + log);
      }
      Thread.sleep(200);
    }
  }

  /**
   * The first micro-batch after {@code afterMillis} that read input rows, from the job's log.
   *
   * @return the epoch ms at which it completed
   */
  static Optional<Long> firstProgressWithInput(Path log, long afterMillis) throws IOException {
    for (String line : lines(log)) {
      Matcher m = PROGRESS.matcher(line);
      if (m.matches()) {
        long at = Long.parseLong(m.group(3));
        if (at > afterMillis && Long.parseLong(m.group(2)) > 0) {
          return Optional.of(at);
        }
      }
    }
    return Optional.empty();
  }

  private static List<String> lines(Path log) throws IOException {
    return Files.exists(log) ? Files.readAllLines(log, StandardCharsets.ISO_8859_1) : List.of();
  }
}
