package dev.tally.bench;

import dev.tally.it.anomaly.Anomaly;
import dev.tally.it.anomaly.AnomalyDataset;
import dev.tally.it.anomaly.AnomalyReport;
import dev.tally.it.anomaly.AnomalyTableReader;
import dev.tally.it.anomaly.SpecAnomalyOracle;
import dev.tally.it.anomaly.SqlAnomalyOracle;
import dev.tally.it.anomaly.TransactionKey;
import dev.tally.stack.FlinkRestClient;
import dev.tally.stack.LocalStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * The anomaly rule (docs/behaviour.md "Anomalies") two ways on one preloaded topic: Tally's job
 * with anomalies on, bounded, and the same rule as a user writes it in Flink SQL ({@code
 * examples/sql/anomalies.sql}, an {@code OVER} window of 7 days) through the job jar's SQL runner,
 * with the same {@code tally.yaml}: state backend, checkpoint policy, parallelism.
 *
 * <p>The data is the harness's {@link AnomalyDataset} (normal amounts, spikes, refunds, duplicates,
 * out-of-order, late and malformed records, and keys at the rule's edges), one currency per user.
 * Each leg's table is checked row for row against its own oracle: Tally's against the contract's
 * ({@link SpecAnomalyOracle}), the SQL form's against what the script computes ({@link
 * SqlAnomalyOracle}); the two oracles' differences are counted too.
 *
 * <p>Per leg: events/s (processing time as {@link JobRuns#runToEnd} defines it), CPU-s per million
 * events, peak RSS, and from the job's REST API every completed checkpoint's full state size and
 * uploaded size (incremental RocksDB) and duration. A leg still running after {@code --time-limit}
 * is stopped and reported {@code unfinished}, its events/s over the records its source vertex had
 * sent on by then.
 */
final class AnomalyBench {

  /** The topic the SQL script reads, and Tally too. */
  private static final String TOPIC = "financial-transactions";

  private static final String TALLY_TABLE = "tally_anomalies";
  private static final TableIdentifier SQL_TABLE =
      TableIdentifier.of("analytics", "spending_anomalies_sql");

  private final BenchOptions o;
  private final boolean sqlLeg;
  private final Path out;
  private final Path work;

  /**
   * @param sqlLeg whether the SQL {@code OVER} leg runs after Tally's
   */
  AnomalyBench(BenchOptions options, boolean sqlLeg, Path out, Path work) {
    this.o = options;
    this.sqlLeg = sqlLeg;
    this.out = out;
    this.work = work;
  }

  /**
   * One leg's figures: its {@link LegResult} (status {@code unfinished} when the time limit stopped
   * it, its records then those its source had sent on) and its checkpoints.
   */
  record Result(LegResult leg, CheckpointWatch.Figures checkpoints, String checkpointLines) {}

  void run() throws Exception {
    AnomalyDataset.Shape shape =
        new AnomalyDataset.Shape(o.users, 1, Duration.ofDays(o.days), o.perKeyPerDay);
    Bench.say("Generating the anomaly dataset: " + shape + ", seed " + o.seed + "…");
    AnomalyDataset data = AnomalyDataset.generate(o.seed, shape);
    Map<TransactionKey, AnomalyReport> contract =
        SpecAnomalyOracle.reports(
            SpecAnomalyOracle.defaults().verdicts(data.transactions()), Long.MAX_VALUE);
    Map<TransactionKey, Anomaly> sqlSemantics = SqlAnomalyOracle.anomalies(data.transactions());
    Bench.say(
        data
            + "; the contract's rule finds "
            + contract.size()
            + " anomalies, the SQL form's semantics "
            + sqlSemantics.size()
            + " ("
            + differences(contract.keySet(), sqlSemantics.keySet())
            + ")");
    Bench.say("Starting the local stack under " + work);
    try (LocalStack stack = LocalStack.start(work.resolve("stack"))) {
      stack.kafka().createTopic(TOPIC, AnomalyDataset.PARTITIONS, AnomalyDataset.TOPIC_CONFIG);
      stack
          .kafka()
          .createTopic(
              TOPIC + ".anomalies", AnomalyDataset.PARTITIONS, AnomalyDataset.TOPIC_CONFIG);
      long started = System.nanoTime();
      long sent = Preloader.preload(stack.kafka().bootstrapServers(), TOPIC, data.inputs());
      Bench.say(
          String.format(
              Locale.ROOT,
              "Preloaded %,d records in %.1f s",
              sent,
              (System.nanoTime() - started) / 1e9));
      BenchContext context =
          new BenchContext(
              stack,
              work,
              o.jobJar(),
              o.flinkLib(),
              o.benchClasses(),
              TOPIC,
              AnomalyDataset.PARTITIONS,
              o.parallelism,
              o.checkpointInterval,
              sent,
              0,
              0,
              0,
              o.jfr,
              List.of());
      RESTCatalog catalog = new RESTCatalog();
      catalog.initialize("bench", stack.catalog().clientProperties());
      List<Result> results = new ArrayList<>();
      results.add(tally(context, catalog, contract));
      if (sqlLeg) {
        results.add(sql(context, catalog, sqlSemantics));
      }
      catalog.close();
      String markdown = markdown(data, shape, contract, sqlSemantics, results);
      System.out.println();
      System.out.println(markdown);
      Files.createDirectories(out);
      Files.writeString(out.resolve("anomalies.md"), markdown, StandardCharsets.UTF_8);
      Files.writeString(out.resolve("anomalies.json"), json(shape, results));
      Bench.say("Written " + out.resolve("anomalies.json") + " and .md; logs under " + work);
    }
  }

  private Result tally(
      BenchContext context, RESTCatalog catalog, Map<TransactionKey, AnomalyReport> expected)
      throws Exception {
    Bench.say("Leg tally: running…");
    CheckpointWatch watch = new CheckpointWatch(o.timeLimit);
    JobRuns.Finished run =
        JobRuns.runLeg(
            context,
            "tally",
            "tally_spending",
            List.of(),
            Stream.concat(
                    Stream.of(
                        "kafka.source.bounded=true",
                        "anomalies.enabled=true",
                        "anomalies.table=" + BenchContext.NAMESPACE + "." + TALLY_TABLE),
                    o.tallySettings.stream())
                .toList(),
            context.stack().objectStore().awsClientEnvironment(),
            watch);
    return result("tally", run, watch, context, () -> checkTally(catalog, expected));
  }

  private Result sql(
      BenchContext context, RESTCatalog catalog, Map<TransactionKey, Anomaly> expected)
      throws Exception {
    Bench.say("Leg sql-over: running…");
    CheckpointWatch watch = new CheckpointWatch(o.timeLimit);
    Map<String, String> environment =
        new HashMap<>(context.stack().objectStore().awsClientEnvironment());
    environment.putAll(context.stack().boundedSqlScriptEnvironment());
    JobRuns.Finished run =
        JobRuns.runLeg(
            context,
            "sql-over",
            "sql_unused",
            List.of("sql", "--file", SqlLeg.beside("anomalies.sql").toString()),
            List.of(),
            environment,
            watch);
    return result("sql-over", run, watch, context, () -> checkSql(catalog, expected));
  }

  /** A check of a finished leg's table: {@code null} when right, else what is wrong. */
  private interface Check {
    String wrong();
  }

  private Result result(
      String name, JobRuns.Finished run, CheckpointWatch watch, BenchContext context, Check check)
      throws IOException {
    List<FlinkRestClient.Checkpoint> checkpoints = watch.checkpoints();
    String status;
    String note;
    long records;
    if (watch.stopped()) {
      status = "unfinished";
      records = watch.sourceRecords();
      note =
          String.format(
              Locale.ROOT,
              "stopped at the %d s limit after its source had sent on %,d of %,d records; output"
                  + " not checked",
              o.timeLimit.toSeconds(),
              records,
              context.events());
    } else if (run.exit() != 0) {
      status = "failed";
      records = watch.sourceRecords();
      note = "exit code " + run.exit() + ", see " + run.log();
    } else {
      records = context.events();
      String wrong = check.wrong();
      status = wrong == null ? "ok" : "wrong";
      note = wrong == null ? "the table equals its oracle row for row" : wrong;
    }
    run.writeThreadCpu(name, records);
    Result r =
        new Result(
            new LegResult(
                name,
                status,
                note,
                records,
                run.processingSeconds(),
                run.process().wall().toMillis() / 1e3,
                run.process().cpu().toMillis() / 1e3,
                run.process().peakRssBytes() / 1048576.0,
                -1,
                -1,
                -1),
            CheckpointWatch.Figures.of(checkpoints),
            CheckpointWatch.Figures.lines(checkpoints));
    Bench.say(
        String.format(
            Locale.ROOT,
            "Leg %s: %s, %,.0f events/s, %.1f CPU-s per million, state %,d bytes at the last"
                + " checkpoint; %s",
            name,
            status,
            r.leg().eventsPerSecond(),
            r.leg().cpuSecondsPerMillion(),
            r.checkpoints().lastStateBytes(),
            note));
    return r;
  }

  /** Tally's table against the contract's oracle, repeats counted as wrong. */
  private static String checkTally(
      RESTCatalog catalog, Map<TransactionKey, AnomalyReport> expected) {
    List<AnomalyReport> rows =
        AnomalyTableReader.reports(
            catalog, TableIdentifier.of(BenchContext.NAMESPACE, TALLY_TABLE));
    Map<TransactionKey, AnomalyReport> table = new TreeMap<>();
    int repeats = 0;
    for (AnomalyReport r : rows) {
      if (table.put(r.id(), r) != null) {
        repeats++;
      }
    }
    return compare(table, expected, repeats, "the contract's oracle");
  }

  /** The SQL form's table against the oracle of what the script computes. */
  private static String checkSql(RESTCatalog catalog, Map<TransactionKey, Anomaly> expected) {
    Map<TransactionKey, Anomaly> table =
        catalog.tableExists(SQL_TABLE) ? AnomalyTableReader.read(catalog, SQL_TABLE) : Map.of();
    return compare(table, expected, 0, "the SQL form's oracle");
  }

  private static <V> String compare(
      Map<TransactionKey, V> table, Map<TransactionKey, V> expected, int repeats, String oracle) {
    Set<TransactionKey> missing = new TreeSet<>(expected.keySet());
    missing.removeAll(table.keySet());
    Set<TransactionKey> unexpected = new TreeSet<>(table.keySet());
    unexpected.removeAll(expected.keySet());
    long differing =
        table.entrySet().stream()
            .filter(e -> expected.containsKey(e.getKey()))
            .filter(e -> !Objects.equals(e.getValue(), expected.get(e.getKey())))
            .count();
    if (missing.isEmpty() && unexpected.isEmpty() && differing == 0 && repeats == 0) {
      return null;
    }
    return String.format(
        Locale.ROOT,
        "%,d rows against %,d of %s: %,d missing (first %s), %,d unexpected (first %s), %,d with"
            + " other figures, %,d repeated",
        table.size(),
        expected.size(),
        oracle,
        missing.size(),
        missing.stream().findFirst().map(Object::toString).orElse("-"),
        unexpected.size(),
        unexpected.stream().findFirst().map(Object::toString).orElse("-"),
        differing,
        repeats);
  }

  private static String differences(Set<TransactionKey> contract, Set<TransactionKey> sql) {
    Set<TransactionKey> onlyContract = new TreeSet<>(contract);
    onlyContract.removeAll(sql);
    Set<TransactionKey> onlySql = new TreeSet<>(sql);
    onlySql.removeAll(contract);
    return String.format(
        Locale.ROOT,
        "%,d only by the contract's rule, %,d only by the SQL form's",
        onlyContract.size(),
        onlySql.size());
  }

  private String markdown(
      AnomalyDataset data,
      AnomalyDataset.Shape shape,
      Map<TransactionKey, AnomalyReport> contract,
      Map<TransactionKey, Anomaly> sqlSemantics,
      List<Result> results) {
    StringBuilder md = new StringBuilder();
    md.append(
        Report.fmt(
            "Anomalies: %s; parallelism %d, checkpoints every %d s, Tally overrides %s. The"
                + " contract finds %,d anomalies, the SQL form's semantics %,d (%s).%n%n",
            data,
            o.parallelism,
            o.checkpointInterval.toSeconds(),
            o.tallySettings,
            contract.size(),
            sqlSemantics.size(),
            differences(contract.keySet(), sqlSemantics.keySet())));
    md.append(
            "| leg | status | records | events/s | CPU-s per million | peak RSS MiB | state at"
                + " last checkpoint | uploaded by it | mean uploaded | checkpoints | mean / max"
                + " checkpoint ms |\n")
        .append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Result r : results) {
      CheckpointWatch.Figures c = r.checkpoints();
      md.append(
          Report.fmt(
              "| %s | %s | %,d | %,.0f | %.1f | %,.0f | %s | %s | %s | %d | %s / %s |%n",
              r.leg().name(),
              r.leg().status(),
              r.leg().records(),
              r.leg().eventsPerSecond(),
              r.leg().cpuSecondsPerMillion(),
              r.leg().peakRssMib(),
              mib(c.lastStateBytes()),
              mib(c.lastCheckpointedBytes()),
              mib(c.meanCheckpointedBytes()),
              c.checkpoints(),
              c.meanDurationMillis(),
              c.maxDurationMillis()));
    }
    if (results.size() == 2) {
      Result tally = results.get(0);
      Result sql = results.get(1);
      md.append(
          Report.fmt(
              "%nTally / SQL OVER events/s: %.2f; SQL OVER state / Tally state: %.2f%n%n",
              sql.leg().eventsPerSecond() > 0
                  ? tally.leg().eventsPerSecond() / sql.leg().eventsPerSecond()
                  : 0,
              tally.checkpoints().lastStateBytes() > 0
                  ? (double) sql.checkpoints().lastStateBytes()
                      / tally.checkpoints().lastStateBytes()
                  : 0));
    }
    for (Result r : results) {
      md.append("- ").append(r.leg().name()).append(": ").append(r.leg().note()).append('\n');
      md.append(r.checkpointLines());
    }
    md.append("\nmachine: ").append(Bench.machine()).append('\n');
    return md.toString();
  }

  private static String mib(long bytes) {
    return bytes < 0 ? "–" : Report.fmt("%.1f MiB", bytes / 1048576.0);
  }

  private String json(AnomalyDataset.Shape shape, List<Result> results) {
    StringBuilder json = new StringBuilder("{\n  \"machine\": {");
    String sep = "";
    for (Map.Entry<String, String> e : Bench.machine().entrySet()) {
      json.append(sep)
          .append(Report.quote(e.getKey()))
          .append(": ")
          .append(Report.quote(e.getValue()));
      sep = ", ";
    }
    json.append(
        Report.fmt(
            "},%n  \"workload\": {\"users\": %d, \"days\": %d, \"per_key_per_day\": %d,"
                + " \"seed\": %d, \"parallelism\": %d, \"checkpoint_interval_seconds\": %d},%n"
                + "  \"legs\": [",
            shape.users(),
            shape.span().toDays(),
            shape.eventsPerKeyPerDay(),
            o.seed,
            o.parallelism,
            o.checkpointInterval.toSeconds()));
    sep = "\n";
    for (Result r : results) {
      CheckpointWatch.Figures c = r.checkpoints();
      json.append(sep)
          .append(
              Report.fmt(
                  "    {\"name\": %s, \"status\": %s, \"note\": %s, \"records\": %d,"
                      + " \"processing_seconds\": %.3f, \"events_per_second\": %.0f,"
                      + " \"cpu_seconds_per_million\": %.2f, \"peak_rss_mib\": %.0f,"
                      + " \"checkpoints\": %d, \"last_state_bytes\": %d,"
                      + " \"last_checkpointed_bytes\": %d, \"mean_checkpointed_bytes\": %d,"
                      + " \"mean_checkpoint_ms\": %d, \"max_checkpoint_ms\": %d}",
                  Report.quote(r.leg().name()),
                  Report.quote(r.leg().status()),
                  Report.quote(r.leg().note()),
                  r.leg().records(),
                  r.leg().processingSeconds(),
                  r.leg().eventsPerSecond(),
                  r.leg().cpuSecondsPerMillion(),
                  r.leg().peakRssMib(),
                  c.checkpoints(),
                  c.lastStateBytes(),
                  c.lastCheckpointedBytes(),
                  c.meanCheckpointedBytes(),
                  c.meanDurationMillis(),
                  c.maxDurationMillis()));
      sep = ",\n";
    }
    return json.append("\n  ]\n}\n").toString();
  }
}
