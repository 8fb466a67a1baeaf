package dev.tally.bench;

import dev.tally.stack.LocalStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ./bench.sh compare}: every leg of the seed's comparison on the same machine, one after
 * another, each in its own JVM: throughput on the preloaded topic exactly as the throughput run
 * measures it, then freshness and recovery live, each on a stack of its own, then one table and one
 * chart ({@link CompareTable}).
 *
 * <p>Freshness is measured for every leg, each with the run's window and out-of-orderness (the SQL
 * scripts take both from the environment, defaulting to the seed's one hour and 5 s). Recovery is
 * measured for every leg; the SQL legs' tables are checked after a drained stop, which closes every
 * window ({@link SqlRecoveryJob}).
 */
final class Compare {

  /** The legs compared, in the table's order. */
  static final List<String> LEGS = List.of("spark", "sql", "sql-same", "tally");

  private static final String NOT_YET = "not reached (the run ended before it)";

  private final BenchOptions o;
  private final int kills;
  private final Path out;
  private final Path work;

  Compare(BenchOptions options, int kills, Path out, Path work) {
    this.o = options;
    this.kills = kills;
    this.out = out;
    this.work = work;
  }

  /** Refuses, before anything starts, options that cannot give every figure. */
  static void validate(BenchOptions o, int kills) {
    if (kills < 1) {
      throw new IllegalArgumentException("--kills must be at least 1 for a recovery figure");
    }
    Freshness.validate(o);
  }

  void run() throws Exception {
    // One stack for every figure, each leg on a topic and table of its own; each leg's job in its
    // own JVM, one after another.
    Bench.say("Starting the local stack under " + work);
    Map<String, LatencyFigure> freshness = new LinkedHashMap<>();
    Map<String, LatencyFigure> recovery = new LinkedHashMap<>();
    List<LegResult> throughput;
    try (LocalStack stack = LocalStack.start(work.resolve("stack"))) {
      Bench.say("Stack up in " + stack.startup().toMillis() + " ms");
      // The throughput run of every compared leg, as ./bench.sh --legs ... runs it; its report
      // goes to this run's directory, leaving target/bench/throughput.* to the throughput mode.
      o.legs = LEGS;
      Path throughputDir = Files.createDirectories(work.resolve("throughput"));
      throughput = Bench.throughput(o, stack, throughputDir, throughputDir);
      write(throughput, freshness, recovery);
      // Figure by figure, so that a run cut short still has both legs of the figures it reached.
      for (String leg : List.of("tally", "spark", "sql", "sql-same")) {
        String unavailable =
            switch (leg) {
              case "spark" -> SparkJob.unavailable();
              case "sql" -> SqlLeg.seed().unavailable(o.jobJar());
              case "sql-same" -> SqlLeg.sameSemantics().unavailable(o.jobJar());
              default -> null;
            };
        if (unavailable != null) {
          freshness.put(leg, LatencyFigure.notMeasured(unavailable));
          continue;
        }
        Bench.say("Freshness of " + leg + "…");
        Path dir = Files.createDirectories(work.resolve("freshness-" + leg));
        freshness.put(leg, guarded(() -> new Freshness(o, dir, dir, leg).figure(stack)));
        Bench.say("Freshness of " + leg + ": " + freshness.get(leg));
        write(throughput, freshness, recovery);
      }
      for (String leg : List.of("tally", "spark", "sql", "sql-same")) {
        SqlLeg sql = leg.equals("sql") ? SqlLeg.seed() : SqlLeg.sameSemantics();
        String unavailable =
            switch (leg) {
              case "spark" -> SparkJob.unavailable();
              case "sql", "sql-same" -> sql.unavailable(o.jobJar());
              default -> null;
            };
        if (unavailable != null) {
          recovery.put(leg, LatencyFigure.notMeasured(unavailable));
          continue;
        }
        Bench.say("Recovery of " + leg + "…");
        Path dir = Files.createDirectories(work.resolve("recovery-" + leg));
        recovery.put(
            leg,
            guarded(
                () ->
                    switch (leg) {
                      case "tally" -> new Recovery(o, kills, Map.of(), dir, dir).figure(stack);
                      case "spark" -> new SparkRecovery(o, kills, dir).figure(stack);
                      default ->
                          new Recovery(
                                  o, kills, Map.of(), dir, dir, new SqlRecoveryJob(sql, o), false)
                              .figure(stack);
                    }));
        Bench.say("Recovery of " + leg + ": " + recovery.get(leg));
        write(throughput, freshness, recovery);
      }
    }
    CompareTable table = write(throughput, freshness, recovery);
    Files.writeString(work.resolve("compare.md"), table.markdown());
    System.out.println();
    System.out.println(table.markdown());
    Bench.say("Written " + out.resolve("compare.json") + ", .md and .png; logs under " + work);
  }

  /** The table of the figures so far (a figure not reached yet: not measured), written out. */
  private CompareTable write(
      List<LegResult> throughput,
      Map<String, LatencyFigure> freshness,
      Map<String, LatencyFigure> recovery)
      throws java.io.IOException {
    List<CompareTable.Row> rows = new ArrayList<>();
    for (String leg : LEGS) {
      LegResult t =
          throughput.stream()
              .filter(r -> r.name().equals(leg))
              .findFirst()
              .orElse(LegResult.skipped(leg, "not run"));
      rows.add(
          new CompareTable.Row(
              leg,
              t,
              freshness.getOrDefault(leg, LatencyFigure.notMeasured(NOT_YET)),
              recovery.getOrDefault(leg, LatencyFigure.notMeasured(NOT_YET))));
    }
    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("events", o.events);
    facts.put("partitions", o.partitions);
    facts.put("users", o.users);
    facts.put("parallelism", o.parallelism);
    facts.put("checkpoint_interval_seconds", o.checkpointInterval.toSeconds());
    facts.put("live_rate", o.rate);
    facts.put("live_duration_seconds", o.duration.toSeconds());
    facts.put("live_window_ms", o.window.toMillis());
    facts.put("out_of_orderness_ms", o.outOfOrderness.toMillis());
    facts.put("kills", kills);
    CompareTable table = new CompareTable(Bench.machine(), facts, rows);
    table.write(out);
    return table;
  }

  private interface Measurement {
    LatencyFigure measure() throws Exception;
  }

  /** A measurement that throws is a failed figure, not a failed run: the others still count. */
  private static LatencyFigure guarded(Measurement m) {
    try {
      return m.measure();
    } catch (Exception e) {
      Bench.say("failed: " + e);
      return LatencyFigure.failed(e.toString());
    }
  }
}
