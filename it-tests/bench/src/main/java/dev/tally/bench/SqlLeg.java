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

  /** The scripts' window length by default, the seed's ({@code INTERVAL '1' HOUR}). */
  static final Duration WINDOW = Duration.ofHours(1);

  /**
   * The scripts' bounded out-of-orderness by default, the seed's ({@code WATERMARK ... - INTERVAL
   * '5' SECOND}).
   */
  static final Duration OUT_OF_ORDERNESS = Duration.ofSeconds(5);

  /** The namespace the scripts write their tables to. */
  static final String NAMESPACE = "analytics";

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
    // Flink SQL drops late records silently: the watch counts them, for the leg's note.
    LateRecordsWatch late = new LateRecordsWatch();
    JobRuns.Finished run =
        JobRuns.runLeg(
            context,
            name(),
            "sql_unused",
            List.of("sql", "--file", script().toString()),
            List.of(),
            environment(context.stack()),
            late);
    if (run.exit() != 0) {
      return LegResult.failed(name(), "exit code " + run.exit() + ", see " + run.log());
    }
    LegResult result =
        run.result(
            name(),
            context,
            IcebergStats.read(context.stack(), NAMESPACE, table),
            byCurrency ? context.expectedRows() : context.expectedUserRows());
    Bench.say(name() + ": " + late.describe());
    return result.withNote(result.note() + "; " + late.describe());
  }

  /** The seed script's endpoints and bounded read, from the environment as it expects them. */
  private static Map<String, String> environment(LocalStack stack) {
    Map<String, String> env = new HashMap<>(stack.objectStore().awsClientEnvironment());
    env.putAll(stack.boundedSqlScriptEnvironment());
    return env;
  }

  /**
   * What the script reads from the environment for a live run on {@code stack}: its endpoints, from
   * the first offset, unbounded, windows of {@code window} and a watermark {@code outOfOrderness}
   * behind the largest event time ({@code WINDOW_SIZE}, {@code OUT_OF_ORDERNESS}), S3 credentials.
   */
  static Map<String, String> liveEnvironment(
      LocalStack stack, Duration window, Duration outOfOrderness) {
    Map<String, String> env = new HashMap<>(stack.objectStore().awsClientEnvironment());
    env.putAll(stack.sqlScriptEnvironment());
    env.put("WINDOW_SIZE", interval(window));
    env.put("OUT_OF_ORDERNESS", interval(outOfOrderness));
    return env;
  }

  /**
   * {@code d} as a Flink SQL interval literal, in the largest unit that holds it whole: {@code
   * INTERVAL '1' HOUR}, {@code INTERVAL '90' MINUTE}, {@code INTERVAL '5' SECOND}, {@code INTERVAL
   * '0.500' SECOND}.
   */
  static String interval(Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("an interval must be positive: " + d);
    }
    long millis = d.toMillis();
    if (millis % 3_600_000 == 0) {
      return literal(Long.toString(millis / 3_600_000), "HOUR");
    }
    if (millis % 60_000 == 0) {
      return literal(Long.toString(millis / 60_000), "MINUTE");
    }
    String seconds =
        millis % 1000 == 0
            ? Long.toString(millis / 1000)
            : String.format(java.util.Locale.ROOT, "%d.%03d", millis / 1000, millis % 1000);
    return literal(seconds, "SECOND");
  }

  private static String literal(String value, String unit) {
    // SQL's interval literals give the leading field two digits unless told more.
    int digits = value.indexOf('.') < 0 ? value.length() : value.indexOf('.');
    return "INTERVAL '" + value + "' " + unit + (digits > 2 ? "(" + digits + ")" : "");
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
