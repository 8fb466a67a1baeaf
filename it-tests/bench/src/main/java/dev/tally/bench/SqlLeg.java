package dev.tally.bench;

import dev.tally.stack.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipFile;

/**
 * A Flink SQL pipeline through the job jar's SQL runner ({@code TallyMain sql}): same JVM set-up,
 * state backend, checkpoint policy and parallelism as {@link TallyLeg} (the same {@code
 * tally.yaml}), bounded by {@code SCAN_BOUNDED_MODE=latest-offset}, measured the same way. Two of
 * them:
 *
 * <ul>
 *   <li>{@link #seed()}, {@code sql}: the seed's pipeline as the seed writes it ({@code
 *       examples/sql/seed-pipeline.sql}), into its own {@code analytics.user_hourly_spending},
 *       keyed by (user, window) without currency, so its check expects the workload's distinct
 *       (user, window) rows;
 *   <li>{@link #sameSemantics()}, {@code sql-same}: the seed's pipeline plus what the behaviour
 *       contract demands that Flink SQL can express ({@code
 *       examples/sql/same-semantics-pipeline.sql}: keyed by currency too, keep-first dedupe by
 *       (user, id) with {@code ROW_NUMBER()} and a 24 h state TTL, window TVF aggregation), into
 *       {@code analytics.user_hourly_spending_by_currency}, checked against Tally's expectation.
 * </ul>
 *
 * <p>Skipped, with no figure, when the job jar has no SQL runner or the script is missing.
 */
final class SqlLeg implements Leg {

  static final String RUNNER_CLASS = "dev/tally/runtime/sql/SqlCommand.class";

  /** The seed's topic name: its scripts read this topic and no other. */
  static final String TOPIC = "financial-transactions";

  /** The scripts' window length ({@code INTERVAL '1' HOUR}). */
  static final Duration WINDOW = Duration.ofHours(1);

  /** The scripts' bounded out-of-orderness ({@code WATERMARK ... - INTERVAL '5' SECOND}). */
  static final Duration OUT_OF_ORDERNESS = Duration.ofSeconds(5);

  private final String name;
  private final String scriptFile;
  private final String table;
  private final boolean byCurrency;

  private SqlLeg(String name, String scriptFile, String table, boolean byCurrency) {
    this.name = name;
    this.scriptFile = scriptFile;
    this.table = table;
    this.byCurrency = byCurrency;
  }

  /** The seed's pipeline as the seed writes it. */
  static SqlLeg seed() {
    return new SqlLeg("sql", "seed-pipeline.sql", "user_hourly_spending", false);
  }

  /** The seed's pipeline with the contract's keys and dedupe, as far as SQL expresses them. */
  static SqlLeg sameSemantics() {
    return new SqlLeg(
        "sql-same", "same-semantics-pipeline.sql", "user_hourly_spending_by_currency", true);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String unavailable(BenchContext context) {
    return unavailable(context.jobJar());
  }

  /** Why this leg cannot run on {@code jobJar}, or null if it can. */
  String unavailable(Path jobJar) {
    Path script = script();
    if (!Files.isRegularFile(script)) {
      return "not available: no SQL script at " + script;
    }
    try (ZipFile jar = new ZipFile(jobJar.toFile())) {
      if (jar.getEntry(RUNNER_CLASS) == null) {
        return "not available: the job jar has no SQL runner";
      }
    } catch (IOException e) {
      return "not available: cannot read the job jar " + jobJar + ": " + e.getMessage();
    }
    return null;
  }

  @Override
  public LegResult run(BenchContext context) throws Exception {
    // The Tally table name in the shared configuration is unused: the script names its own table.
    JobRuns.Finished run =
        JobRuns.runLeg(
            context,
            name(),
            "sql_unused",
            List.of("sql", "--file", script().toString()),
            List.of(),
            environment(context.stack()));
    if (run.exit() != 0) {
      return LegResult.failed(name(), "exit code " + run.exit() + ", see " + run.log());
    }
    return run.result(
        name(),
        context,
        IcebergStats.read(context.stack(), "analytics", table),
        byCurrency ? context.expectedRows() : context.expectedUserRows());
  }

  /** The seed script's endpoints and bounded read, from the environment as it expects them. */
  private static Map<String, String> environment(LocalStack stack) {
    Map<String, String> env = new HashMap<>(stack.objectStore().awsClientEnvironment());
    env.putAll(stack.boundedSqlScriptEnvironment());
    return env;
  }

  /** The table the script writes, in namespace {@code analytics}. */
  String table() {
    return table;
  }

  /**
   * Whether the table is keyed by currency too; the seed's is keyed by (user, window) alone, its
   * sums over the currencies.
   */
  boolean byCurrency() {
    return byCurrency;
  }

  /** The script, beside the seed's. */
  Path script() {
    return beside(scriptFile);
  }

  /** The script of that name beside the seed's ({@code tally.sql.script}), in examples/sql. */
  static Path beside(String scriptFile) {
    return Path.of(System.getProperty("tally.sql.script", "examples/sql/seed-pipeline.sql"))
        .toAbsolutePath()
        .normalize()
        .resolveSibling(scriptFile);
  }
}
