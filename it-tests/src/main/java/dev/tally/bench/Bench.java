package dev.tally.bench;

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

/**
 * The benchmark (see docs/benchmarks.md), on the local stack of real services:
 *
 * <pre>
 * ./bench.sh [throughput] [--events 5000000] [--parallelism 2] [--legs ceiling,tally,sql] ...
 * ./bench.sh freshness [--rate 20000] [--duration 180s] [--window 10s] [--checkpoint-interval 10s]
 * ./bench.sh backpressure [--rate 10000] [--throttle 2000] [--duration 90s]
 * </pre>
 *
 * Results go to {@code target/bench/} (JSON, Markdown, PNG) and standard output.
 */
public final class Bench {

  static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  private Bench() {}

  /** Every leg of the throughput run, in the order they run. Add a leg here. */
  static List<Leg> legs() {
    return List.of(new CeilingLeg(), new TallyLeg(), new SqlLeg());
  }

  public static void main(String[] args) throws Exception {
    List<String> rest = new ArrayList<>(List.of(args));
    String mode = !rest.isEmpty() && !rest.get(0).startsWith("--") ? rest.remove(0) : "throughput";
    Options options = Options.parse(rest);
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
    switch (mode) {
      case "throughput" -> throughput(options, out, work);
      case "freshness" -> new Freshness(options, out, work).run();
      case "backpressure" -> new Backpressure(options, out, work).run();
      default ->
          throw new IllegalArgumentException(
              "unknown mode " + mode + "; use throughput, freshness or backpressure");
    }
  }

  private static void throughput(Options o, Path out, Path work) throws Exception {
    say("Starting the local stack under " + work);
    try (LocalStack stack = LocalStack.start(work.resolve("stack"))) {
      say("Stack up in " + stack.startup().toMillis() + " ms");
      // The seed's topic name: its SQL script reads this topic and no other.
      String topic = "financial-transactions";
      stack.kafka().createTopic(topic, o.partitions, Map.of("retention.ms", "-1"));
      stack.kafka().createTopic(topic + ".dlq", 1, Map.of("retention.ms", "-1"));
      long window = 3_600_000L;
      long span = o.hours * window;
      // Event time ends two hours in the past, on an hour boundary: no record is ahead of the
      // broker's clock, and the expected rows count windows aligned as the job aligns them.
      long first = (System.currentTimeMillis() - span - 2 * window) / window * window;
      Workload workload = new Workload(o.seed, o.users, o.zipf, o.events, first, span, window);
      say(
          String.format(
              Locale.ROOT,
              "Preloading %,d events (%,d users, Zipf s=%.2f, seed %d, %d hours of event time)"
                  + " into %s (%d partitions)…",
              o.events,
              o.users,
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
    }
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

  /** Command-line options of every mode; each mode reads the ones it needs. */
  static final class Options {
    long events = 5_000_000;
    int partitions = 8;
    int users = 100_000;
    double zipf = 0.8;
    long seed = 42;
    int hours = 6;
    int parallelism = 2;
    Duration checkpointInterval = Duration.ofSeconds(10);
    List<String> legs = List.of("ceiling", "tally", "sql");
    int rate = 20_000;
    Duration duration = Duration.ofSeconds(180);
    Duration window = Duration.ofSeconds(10);
    Duration outOfOrderness = Duration.ofSeconds(2);
    Duration warmup = Duration.ofSeconds(30);
    int throttle = 1_500;
    boolean jfr;
    List<String> tallySettings = new ArrayList<>();

    static Options parse(List<String> args) {
      Options o = new Options();
      for (int i = 0; i < args.size(); i++) {
        String arg = args.get(i);
        if (arg.equals("--jfr")) {
          o.jfr = true;
          continue;
        }
        if (i + 1 >= args.size()) {
          throw new IllegalArgumentException(arg + " needs a value");
        }
        String v = args.get(++i);
        switch (arg) {
          case "--events" -> o.events = Long.parseLong(v.replace("_", ""));
          case "--partitions" -> o.partitions = Integer.parseInt(v);
          case "--users" -> o.users = Integer.parseInt(v.replace("_", ""));
          case "--zipf" -> o.zipf = Double.parseDouble(v);
          case "--seed" -> o.seed = Long.parseLong(v);
          case "--hours" -> o.hours = Integer.parseInt(v);
          case "--parallelism" -> o.parallelism = Integer.parseInt(v);
          case "--checkpoint-interval" -> o.checkpointInterval = duration(v);
          case "--legs" -> o.legs = List.of(v.split(","));
          case "--tally-set" -> o.tallySettings.add(v);
          case "--rate" -> o.rate = Integer.parseInt(v.replace("_", ""));
          case "--duration" -> o.duration = duration(v);
          case "--window" -> o.window = duration(v);
          case "--out-of-orderness" -> o.outOfOrderness = duration(v);
          case "--warmup" -> o.warmup = duration(v);
          case "--throttle" -> o.throttle = Integer.parseInt(v.replace("_", ""));
          default -> throw new IllegalArgumentException("unknown option " + arg);
        }
      }
      return o;
    }

    Path jobJar() {
      return Path.of(
          System.getProperty("tally.job.jar", "runtime-flink/target/tally-runtime-flink-job.jar"));
    }

    Path flinkLib() {
      return Path.of(System.getProperty("tally.flink.lib", "runtime-flink/target/flink-lib"));
    }

    Path benchClasses() {
      return Path.of(System.getProperty("tally.bench.classes", "it-tests/target/classes"));
    }

    /** {@code 10s}, {@code 2m}, {@code 500ms}. */
    static Duration duration(String text) {
      String t = text.trim().toLowerCase(Locale.ROOT);
      if (t.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
      }
      if (t.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
      }
      return Duration.ofSeconds(
          Long.parseLong(t.endsWith("s") ? t.substring(0, t.length() - 1) : t));
    }
  }
}
