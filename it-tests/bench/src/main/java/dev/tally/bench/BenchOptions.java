package dev.tally.bench;

import dev.tally.stack.DurationConverter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * Command-line options of every bench mode (a picocli mixin); each mode reads the ones it needs.
 * Counts may be written with underscores, {@code 5_000_000}; durations as {@code 500ms}, {@code
 * 10s}, {@code 2m}.
 */
final class BenchOptions {

  @Option(
      names = "--events",
      paramLabel = "N",
      defaultValue = "5000000",
      converter = Count.class,
      description = "throughput: events preloaded (default: ${DEFAULT-VALUE}).")
  long events;

  @Option(
      names = "--partitions",
      paramLabel = "N",
      defaultValue = "8",
      description = "Partitions of the topic (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Option(
      names = "--users",
      paramLabel = "N",
      defaultValue = "100000",
      converter = IntCount.class,
      description = "Distinct users (default: ${DEFAULT-VALUE}).")
  int users;

  @Option(
      names = "--zipf",
      paramLabel = "S",
      defaultValue = "0.8",
      description = "Zipf exponent of the users' skew (default: ${DEFAULT-VALUE}).")
  double zipf;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Seed of the generator (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--hours",
      paramLabel = "N",
      defaultValue = "6",
      description = "throughput: hours of event time (default: ${DEFAULT-VALUE}).")
  int hours;

  @Option(
      names = "--parallelism",
      paramLabel = "N",
      defaultValue = "2",
      description = "Parallelism of the jobs, threads of the ceiling (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(
      names = "--checkpoint-interval",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = DurationConverter.class,
      description = "Checkpoint interval of the jobs (default: ${DEFAULT-VALUE}).")
  Duration checkpointInterval;

  @Option(
      names = "--legs",
      paramLabel = "LEG",
      split = ",",
      defaultValue = "ceiling,tally,sql,sql-same",
      description =
          "throughput: the legs to run, of ceiling, tally, sql, sql-same, spark (default:"
              + " ${DEFAULT-VALUE}; spark needs the build's profile spark, which ./bench.sh adds"
              + " when it is named).")
  List<String> legs;

  @Option(
      names = "--tally-set",
      paramLabel = "KEY=VALUE",
      description =
          "throughput, scale, recovery, anomalies, anomaly-latency: a --set override for Tally's job"
              + " (the tally leg's); repeatable.")
  List<String> tallySettings = new ArrayList<>();

  @Option(
      names = "--rate",
      paramLabel = "EVENTS",
      defaultValue = "20000",
      converter = IntCount.class,
      description =
          "freshness, backpressure, recovery: events produced per second (default:"
              + " ${DEFAULT-VALUE}).")
  int rate;

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      defaultValue = "180s",
      converter = DurationConverter.class,
      description = "freshness, backpressure: how long traffic runs (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(
      names = "--window",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = DurationConverter.class,
      description =
          "freshness, backpressure, recovery: the job's window size (default: ${DEFAULT-VALUE}).")
  Duration window;

  @Option(
      names = "--out-of-orderness",
      paramLabel = "DURATION",
      defaultValue = "2s",
      converter = DurationConverter.class,
      description =
          "freshness, backpressure, recovery: the watermarks' out-of-orderness bound (default:"
              + " ${DEFAULT-VALUE}).")
  Duration outOfOrderness;

  @Option(
      names = "--warmup",
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description =
          "freshness: traffic before the first window measured; recovery: before the first kill;"
              + " anomaly-latency: traffic before the first spike (default: ${DEFAULT-VALUE};"
              + " anomaly-latency: "
              + Bench.AnomalyLatencyMode.DEFAULT_WARMUP
              + ").")
  Duration warmup;

  @Option(
      names = "--throttle",
      paramLabel = "ROWS",
      defaultValue = "1500",
      converter = IntCount.class,
      description =
          "backpressure, --fault writer: rows per second each spending writer subtask takes in"
              + " (default: ${DEFAULT-VALUE}).")
  int throttle;

  @Option(
      names = "--days",
      paramLabel = "N",
      defaultValue = "10",
      description = "anomalies: days of event time, at least 8 (default: ${DEFAULT-VALUE}).")
  int days;

  @Option(
      names = "--per-key-per-day",
      paramLabel = "N",
      defaultValue = "4",
      description =
          "anomalies: mean transactions a day of each user's one currency (default:"
              + " ${DEFAULT-VALUE}).")
  int perKeyPerDay;

  @Option(
      names = "--time-limit",
      paramLabel = "DURATION",
      defaultValue = "15m",
      converter = DurationConverter.class,
      description =
          "anomalies, scale: a leg's job still running after this is stopped and reported unfinished"
              + " (default: ${DEFAULT-VALUE}).")
  Duration timeLimit;

  @Option(
      names = "--fault",
      paramLabel = "FAULT",
      defaultValue = "writer",
      converter = Backpressure.Fault.Converter.class,
      description =
          "backpressure: what is slow, writer (the Iceberg writers' own tasks) or store (every"
              + " request to the object store, through a latency proxy) (default:"
              + " ${DEFAULT-VALUE}).")
  Backpressure.Fault fault;

  @Option(
      names = "--store-latency",
      paramLabel = "DURATION",
      defaultValue = "200ms",
      converter = DurationConverter.class,
      description =
          "backpressure, --fault store: latency added to each request to the object store"
              + " (default: ${DEFAULT-VALUE}).")
  Duration storeLatency;

  @Option(
      names = "--store-bandwidth",
      paramLabel = "BYTES_PER_S",
      defaultValue = "0",
      description =
          "backpressure, --fault store: bytes a second that the job's requests to the object store"
              + " share, all connections together, after their latency; 0 for no cap (default:"
              + " ${DEFAULT-VALUE}).")
  long storeBandwidth;

  @Option(
      names = "--modes",
      paramLabel = "MODE",
      split = ",",
      defaultValue =
          "aligned,aligned-debloat,unaligned-blocking-timers,unaligned,unaligned-debloat,defaults",
      converter = Backpressure.Mode.Converter.class,
      description =
          "backpressure: the checkpoint modes to run, in order, of aligned, aligned-debloat,"
              + " unaligned-blocking-timers, unaligned, unaligned-debloat, aligned-timeout-5s,"
              + " defaults (Tally's own)"
              + " (default: ${DEFAULT-VALUE}).")
  List<Backpressure.Mode> modes;

  @Option(
      names = "--jfr",
      description = "throughput: a Java Flight Recording of each job leg (<leg>/<leg>.jfr).")
  boolean jfr;

  Path jobJar() {
    return Path.of(
        System.getProperty("tally.job.jar", "runtime-flink/target/tally-runtime-flink-job.jar"));
  }

  Path flinkLib() {
    return Path.of(System.getProperty("tally.flink.lib", "runtime-flink/target/flink-lib"));
  }

  Path benchClasses() {
    return Path.of(System.getProperty("tally.bench.classes", "it-tests/bench/target/classes"));
  }

  /** A count, {@code 5000000} or {@code 5_000_000}. */
  static final class Count implements ITypeConverter<Long> {
    @Override
    public Long convert(String text) {
      return Long.parseLong(text.replace("_", ""));
    }
  }

  /** A count that fits an {@code int}, {@code 20000} or {@code 20_000}. */
  static final class IntCount implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String text) {
      return Integer.parseInt(text.replace("_", ""));
    }
  }
}
