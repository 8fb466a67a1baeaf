package dev.tally.bench;

import dev.tally.stack.DurationConverter;
import dev.tally.stack.HelpOption;
import dev.tally.stack.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The benchmark (see docs/benchmarks.md), on the local stack of real services:
 *
 * <pre>
 * ./bench.sh [throughput] [--events 5000000] [--parallelism 2] [--legs ceiling,tally,sql,sql-same,spark] ...
 * ./bench.sh freshness [--rate 20000] [--duration 180s] [--window 10s] [--checkpoint-interval 10s]
 * ./bench.sh backpressure [--fault writer|store] [--modes aligned,unaligned,...] [--duration 180s]
 * ./bench.sh anomalies [--users 100000] [--days 10] [--time-limit 15m]
 * ./bench.sh anomaly-latency [--rate 20000] [--duration 180s] [--checkpoint-interval 10s]
 * ./bench.sh recovery [--leg tally|sql|sql-same] [--kills 10] [--rate 5000] [--cluster-set heartbeat.interval=500ms] ...
 * ./bench.sh compare [--events 5000000] [--rate 20000] [--duration 180s] [--kills 3] ...
 * ./bench.sh scale [--cells 1Mx10k,5Mx100k,5Mx1M,20Mx1M] [--no-ceiling] [--time-limit 15m] ...
 * </pre>
 *
 * Results go to {@code target/bench/} (JSON, Markdown, PNG) and standard output. Without a mode it
 * runs {@code throughput}.
 */
@Command(
    name = "bench.sh",
    description = "Tally's benchmark on the local stack; throughput when no mode is given.",
    subcommands = {
      Bench.Throughput.class,
      Bench.FreshnessMode.class,
      Bench.BackpressureMode.class,
      Bench.AnomaliesMode.class,
      Bench.AnomalyLatencyMode.class,
      Bench.RecoveryMode.class,
      Bench.CompareMode.class,
      Bench.ScaleMode.class
    })
public final class Bench implements Callable<Integer> {
  @Mixin private HelpOption help;

  static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  private Bench() {}

  /** Every leg of the throughput run, in the order they run. Add a leg here. */
  static List<Leg> legs() {
    return List.of(
        new CeilingLeg(), new TallyLeg(), SqlLeg.seed(), SqlLeg.sameSemantics(), new SparkLeg());
  }

  @Mixin private BenchOptions options;

  /** Runs one mode; {@code --help} for the modes and options. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new Bench()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    return new Throughput(options).call();
  }

  /**
   * Where a run's results go, and its own work directory (stack, jobs, logs).
   *
   * @param out results, shared by every run
   * @param work this run's directory
   */
  private record Directories(Path out, Path work) {}

  /** Where results go, and a new work directory for this run of {@code mode}. */
  private static Directories directories(String mode) throws IOException {
    // Normalized: S3Proxy refuses object paths under a base directory written with "..".
    Path out =
        Path.of(System.getProperty("tally.bench.dir", "target/bench")).toAbsolutePath().normalize();
    Path work =
        out.resolve(
            "run-"
                + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                    .withZone(ZoneOffset.UTC)
                    .format(Instant.now())
                + "-"
                + mode);
    Files.createDirectories(work);
    return new Directories(out, work);
  }

  /** Events/s of a ceiling, Tally's job and the seed's SQL on one preloaded topic. */
  @Command(
      name = "throughput",
      description = "Throughput on preloaded events: the ceiling, Tally's job jar, the SQL runner.")
  static final class Throughput implements Callable<Integer> {
    @Mixin private HelpOption help;

    @Mixin private BenchOptions options;

    Throughput() {}

    Throughput(BenchOptions options) {
      this.options = options;
    }

    @Override
    public Integer call() throws Exception {
      Directories dirs = directories("throughput");
      throughput(options, dirs.out(), dirs.work());
      return 0;
    }
  }

  /** Window end to rows readable in Iceberg, live at a fixed rate. */
  @Command(
      name = "freshness",
      description = "Freshness: window end to rows readable in Iceberg, live (p50, p99).")
  static final class FreshnessMode implements Callable<Integer> {
    @Mixin private HelpOption help;

    @Mixin private BenchOptions options;

    @Override
    public Integer call() throws Exception {
      Directories dirs = directories("freshness");
      new Freshness(options, dirs.out(), dirs.work()).run();
      return 0;
    }
  }

  /** Checkpoint durations per checkpoint mode, with slow writers or a slow object store. */
  @Command(
      name = "backpressure",
      description =
          "Checkpoints under backpressure per checkpoint mode: slow writers or a slow object"
              + " store.")
  static final class BackpressureMode implements Callable<Integer> {
    @Mixin private HelpOption help;

    @Mixin private BenchOptions options;

    @Option(
        names = "--cluster-set",
        paramLabel = "KEY=VALUE",
        description =
            "backpressure: a Flink setting of the job's local cluster, over the one every mode"
                + " sets (to screen a network setting); repeatable.")
    Map<String, String> clusterSettings = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
      Directories dirs = directories("backpressure");
      new Backpressure(options, clusterSettings, dirs.out(), dirs.work()).run();
      return 0;
    }
  }

  /** Tally's anomaly rule against the SQL {@code OVER} form, on days of preloaded event time. */
  @Command(
      name = "anomalies",
      description =
          "Anomalies: Tally against the SQL OVER form on preloaded days of event time (events/s,"
              + " CPU, state and checkpoint sizes, each output against its oracle).")
  static final class AnomaliesMode implements Callable<Integer> {
    @Mixin private HelpOption help;

    @Mixin private BenchOptions options;

    @Option(
        names = "--sql",
        negatable = true,
        defaultValue = "true",
        fallbackValue = "true",
        description =
            "anomalies: also run the SQL OVER leg (default: on); --no-sql runs Tally's alone, to"
                + " compare Tally's settings (--tally-set) side by side.")
    boolean sql;

    @Override
    public Integer call() throws Exception {
      Directories dirs = directories("anomalies");
      new AnomalyBench(options, sql, dirs.out(), dirs.work()).run();
      return 0;
    }
  }

  /** Anomaly alert latency, live, exactly once and at least once. */
  @Command(
      name = "anomaly-latency",
      description =
          "Anomaly alerts: spike sent to alert visible to a read_committed consumer, live, with"
              + " exactly-once and at-least-once delivery (p50, p99).")
  static final class AnomalyLatencyMode implements Callable<Integer> {
    /**
     * The warm-up when {@code --warmup} is not given. A first job on a fresh stack (JIT, the
     * preloaded baselines, the first checkpoints and Kafka transactions) took about a minute to
     * reach its steady state exactly once, so 30 s put start-up spikes into the p99.
     */
    static final String DEFAULT_WARMUP = "60s";

    @Mixin private HelpOption help;

    @Mixin private BenchOptions options;

    @Spec private CommandSpec spec;

    @Option(
        names = "--deliveries",
        paramLabel = "DELIVERY",
        split = ",",
        defaultValue = "exactly-once,at-least-once",
        description =
            "anomaly-latency: the anomalies.kafka.delivery values measured, in order, each with a"
                + " job of its own on the same stack (default: ${DEFAULT-VALUE}); one per run"
                + " keeps a run short.")
    List<String> deliveries;

    /** The warm-up: {@code --warmup} if given, else {@value #DEFAULT_WARMUP}. */
    Duration warmup() {
      boolean given =
          spec != null
              && spec.commandLine() != null
              && spec.commandLine().getParseResult() != null
              && spec.commandLine().getParseResult().hasMatchedOption("--warmup");
      return given ? options.warmup : new DurationConverter().convert(DEFAULT_WARMUP);
    }

    @Override
    public Integer call() throws Exception {
      for (String delivery : deliveries) {
        if (!AnomalyLatency.DELIVERIES.contains(delivery)) {
          throw new CommandLine.ParameterException(
              spec.commandLine(),
              "--deliveries: " + delivery + " is none of " + AnomalyLatency.DELIVERIES);
        }
      }
      Directories dirs = directories("anomaly-latency");
      new AnomalyLatency(options, deliveries, warmup(), dirs.out(), dirs.work()).run();
      return 0;
    }
  }

  /** TaskManager loss to processing again, on a multi-process cluster, kill after kill. */
  @Command(
      name = "recovery",
      description =
          "Recovery: kill -9 of a TaskManager running tasks, N times, on a standalone cluster with"
              + " live traffic; loss to processing again (p50, p95, max), by phase, table exact.")
  static final class RecoveryMode implements Callable<Integer> {
    @Mixin private HelpOption help;

    @Mixin private BenchOptions options;

    @Option(
        names = "--kills",
        paramLabel = "N",
        defaultValue = "10",
        description = "recovery: TaskManagers killed, one per round (default: ${DEFAULT-VALUE}).")
    int kills;

    @Option(
        names = "--cluster-set",
        paramLabel = "KEY=VALUE",
        description =
            "recovery: a Flink setting of the cluster's config.yaml, over the test cluster's own;"
                + " repeatable.")
    Map<String, String> clusterSettings = new LinkedHashMap<>();

    @Option(
        names = "--leg",
        paramLabel = "LEG",
        defaultValue = "tally",
        description =
            "recovery: the job killed under: tally (Tally's pipeline), sql or sql-same (the SQL"
                + " leg's script, flink run <job jar> sql --file ...) (default: ${DEFAULT-VALUE}).")
    String leg;

    // On by default since the screening pair of 2026-12-07 (docs/benchmarks.md, Recovery): the
    // standby's code loaded and loss -> processing were both lower with the archive. Only this
    // mode has it: compare's legs run without, as deploy/'s image ships none.
    @Option(
        names = "--class-archive",
        negatable = true,
        defaultValue = "true",
        fallbackValue = "true",
        description =
            "recovery: train a class data sharing archive on a TaskManager that ran the job, after"
                + " the warm-up, and start every later TaskManager (the standbys) with it"
                + " (FlinkCluster#archiveClasses; default: ${DEFAULT-VALUE}; --no-class-archive"
                + " measures cold standbys without it).")
    boolean classArchive;

    @Override
    public Integer call() throws Exception {
      Recovery.Job job =
          switch (leg) {
            case "tally" -> null;
            case "sql" -> new SqlRecoveryJob(SqlLeg.seed(), options);
            case "sql-same" -> new SqlRecoveryJob(SqlLeg.sameSemantics(), options);
            default ->
                throw new CommandLine.ParameterException(
                    new CommandLine(this), "--leg must be tally, sql or sql-same, not " + leg);
          };
      Directories dirs = directories("recovery");
      new Recovery(options, kills, clusterSettings, dirs.out(), dirs.work(), job, classArchive)
          .run();
      return 0;
    }
  }

  /** Every leg's throughput, freshness and recovery, in one table and one chart. */
  @Command(
      name = "compare",
      description =
          "Compare: throughput (preloaded), freshness (live) and recovery (kill mid-run) of every"
              + " leg (spark, sql, sql-same, tally) in one table and chart; --legs is not used.")
  static final class CompareMode implements Callable<Integer> {
    @Mixin private HelpOption help;

    @Mixin private BenchOptions options;

    @Option(
        names = "--kills",
        paramLabel = "N",
        defaultValue = "3",
        description = "compare: kills per leg for the recovery figure (default: ${DEFAULT-VALUE}).")
    int kills;

    @Override
    public Integer call() throws Exception {
      Compare.validate(options, kills);
      Directories dirs = directories("compare");
      new Compare(options, kills, dirs.out(), dirs.work()).run();
      return 0;
    }
  }

  /** Tally's cost curve over a grid of events and users, each cell a throughput run of its own. */
  @Command(
      name = "scale",
      description =
          "Scale: Tally (and the ceiling) on a grid of events x users, each cell on a fresh"
              + " stack: events/s, CPU per event, peak RSS, checkpoint sizes, state per million"
              + " ids; --events, --users and --legs are not used.")
  static final class ScaleMode implements Callable<Integer> {
    @Mixin private HelpOption help;

    @Mixin BenchOptions options;

    @Option(
        names = "--cells",
        paramLabel = "EVENTSxUSERS",
        split = ",",
        defaultValue = Scale.DEFAULT_CELLS,
        description =
            "scale: the cells to run, in order, each <events>x<users> with k or M, e.g. 20Mx1M"
                + " (default: ${DEFAULT-VALUE}).")
    List<String> cells;

    @Option(
        names = "--ceiling",
        negatable = true,
        defaultValue = "true",
        fallbackValue = "true",
        description =
            "scale: run the ceiling leg in every cell, for Tally's CPU per event against it"
                + " (default: ${DEFAULT-VALUE}; --no-ceiling to skip it).")
    boolean ceiling;

    /** The grid, parsed and checked before anything starts. */
    List<Scale.Cell> grid() {
      try {
        return Scale.cells(cells);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
      }
    }

    @Override
    public Integer call() throws Exception {
      List<Scale.Cell> grid = grid();
      Directories dirs = directories("scale");
      new Scale(options, grid, ceiling, dirs.out(), dirs.work()).run();
      return 0;
    }
  }

  /** The throughput run: every leg of {@code o.legs}, its report written to {@code out}. */
  static List<LegResult> throughput(BenchOptions o, Path out, Path work) throws Exception {
    say("Starting the local stack under " + work);
    try (LocalStack stack = LocalStack.start(work.resolve("stack"))) {
      say("Stack up in " + stack.startup().toMillis() + " ms");
      return throughput(o, stack, out, work);
    }
  }

  /** {@link #throughput(BenchOptions, Path, Path)} on a running stack. */
  static List<LegResult> throughput(BenchOptions o, LocalStack stack, Path out, Path work)
      throws Exception {
    Preloaded preloaded = preload(o, stack, work, o.events, o.users);
    BenchContext context = preloaded.context();
    Workload workload = preloaded.workload();
    long sent = context.events();
    double seconds = preloaded.seconds();
    List<LegResult> results = new ArrayList<>();
    for (Leg leg : legs()) {
      if (!o.legs.contains(leg.name())) {
        continue;
      }
      String unavailable = leg.unavailable(context);
      LegResult result;
      if (unavailable != null) {
        result = LegResult.skipped(leg.name(), unavailable);
        say("Leg " + leg.name() + ": skipped, " + unavailable);
      } else {
        say("Leg " + leg.name() + ": running…");
        try {
          result = leg.run(context);
        } catch (Exception e) {
          result = LegResult.failed(leg.name(), e.toString());
        }
        say(describe(result));
      }
      results.add(result);
    }
    Map<String, Object> workloadFacts = new LinkedHashMap<>();
    workloadFacts.put("events", sent);
    workloadFacts.put("partitions", o.partitions);
    workloadFacts.put("users", o.users);
    workloadFacts.put("zipf_exponent", o.zipf);
    workloadFacts.put("currencies", Workload.CURRENCIES.length);
    workloadFacts.put("seed", o.seed);
    workloadFacts.put("event_time_hours", o.hours);
    workloadFacts.put("expected_rows", workload.expectedRows());
    workloadFacts.put("parallelism", o.parallelism);
    workloadFacts.put("checkpoint_interval_seconds", o.checkpointInterval.toSeconds());
    workloadFacts.put("preload_events_per_second", Math.round(sent / seconds));
    Report report = new Report(machine(), workloadFacts, results);
    report.write(out);
    Files.writeString(work.resolve("throughput.json"), report.json());
    System.out.println();
    System.out.println(report.markdown());
    say("Written " + out.resolve("throughput.json") + ", .md and .png; logs under " + work);
    return results;
  }

  /**
   * A preloaded topic and what the legs share about it.
   *
   * @param workload the generator, with its expectation
   * @param seconds how long the preload took
   */
  record Preloaded(BenchContext context, Workload workload, double seconds) {}

  /**
   * Creates the seed's topic on {@code stack} and preloads {@code events} events of {@code users}
   * users into it, the other workload options from {@code o}.
   */
  static Preloaded preload(BenchOptions o, LocalStack stack, Path work, long events, int users) {
    // The seed's topic name: its SQL script reads this topic and no other.
    String topic = SqlLeg.TOPIC;
    stack.kafka().createTopic(topic, o.partitions, Map.of("retention.ms", "-1"));
    long window = 3_600_000L;
    long span = o.hours * window;
    // Event time ends two hours in the past, on an hour boundary: no record is ahead of the
    // broker's clock, and the expected rows count windows aligned as the job aligns them.
    long first = (System.currentTimeMillis() - span - 2 * window) / window * window;
    Workload workload = new Workload(o.seed, users, o.zipf, events, first, span, window);
    say(
        String.format(
            Locale.ROOT,
            "Preloading %,d events (%,d users, Zipf s=%.2f, seed %d, %d hours of event time)"
                + " into %s (%d partitions)…",
            events,
            users,
            o.zipf,
            o.seed,
            o.hours,
            topic,
            o.partitions));
    long started = System.nanoTime();
    long sent = Preloader.preload(stack.kafka().bootstrapServers(), topic, workload);
    double seconds = (System.nanoTime() - started) / 1e9;
    say(
        String.format(
            Locale.ROOT,
            "Preloaded %,d events in %.1f s (%,.0f/s); expecting %,d rows, amount sum %,d",
            sent,
            seconds,
            sent / seconds,
            workload.expectedRows(),
            workload.amountSum()));
    BenchContext context =
        new BenchContext(
            stack,
            work,
            o.jobJar(),
            o.flinkLib(),
            o.benchClasses(),
            topic,
            o.partitions,
            o.parallelism,
            o.checkpointInterval,
            sent,
            workload.amountSum(),
            workload.expectedRows(),
            workload.expectedUserRows(),
            o.jfr,
            o.tallySettings);
    return new Preloaded(context, workload, seconds);
  }

  static String describe(LegResult r) {
    if (!r.measured()) {
      return "Leg " + r.name() + ": " + r.status() + ", " + r.note();
    }
    return String.format(
        Locale.ROOT,
        "Leg %s: %s, %,.0f events/s (%,d records in %.1f s), %.1f CPU-s per million, peak RSS"
            + " %,.0f MiB; %s",
        r.name(),
        r.status(),
        r.eventsPerSecond(),
        r.records(),
        r.processingSeconds(),
        r.cpuSecondsPerMillion(),
        r.peakRssMib(),
        r.note());
  }

  /** The machine the figures were measured on. */
  static Map<String, String> machine() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    m.put("cpu", firstValue("/proc/cpuinfo", "model name"));
    String mem = firstValue("/proc/meminfo", "MemTotal");
    m.put(
        "ram_gib",
        mem.isEmpty()
            ? "?"
            : String.format(
                Locale.ROOT, "%.1f", Long.parseLong(mem.replaceAll("[^0-9]", "")) / 1048576.0));
    m.put(
        "jdk",
        System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version", System.getProperty("java.version")));
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put("measured_at", Instant.now().toString());
    return m;
  }

  private static String firstValue(String file, String key) {
    try {
      for (String line : Files.readAllLines(Path.of(file))) {
        if (line.startsWith(key)) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux: leave it out.
    }
    return "";
  }

  static void say(String message) {
    System.out.println("[" + CLOCK.format(Instant.now()) + "] " + message);
  }
}
