package dev.tally.it.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.support.SeedSqlInput;
import dev.tally.it.support.SpendingRows;
import dev.tally.it.support.SpendingRows.Key;
import dev.tally.it.support.SpendingRows.Totals;
import dev.tally.it.support.StackFixture;
import dev.tally.runtime.TallyMain;
import dev.tally.runtime.config.ConfigSource;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.runtime.sql.SqlCommand;
import dev.tally.runtime.sql.SqlRunner;
import dev.tally.runtime.sql.SqlScript;
import dev.tally.runtime.sql.SqlScriptException;
import dev.tally.runtime.sql.TextTable;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyYaml;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobListener;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The seed's Flink SQL pipeline, run by Tally's SQL runner exactly as {@code examples/sql} holds
 * it, against the real local stack (a Kafka broker, an Iceberg REST catalog, an S3-compatible
 * store): for input the seed's SQL has an answer for (one currency, no duplicates, no bad records,
 * nothing late) it writes the same rows as Tally's Java pipeline, and a script with a bad statement
 * is rejected at its line before anything runs.
 */
class SqlPipelineIT {

  private static final Path EXAMPLES = Path.of("..", "examples", "sql");
  private static final String TOPIC = SeedSqlInput.TOPIC;
  private static final int PARTITIONS = 4;
  private static final Instant BASE = SeedSqlInput.BASE;

  private static Path root;
  private static StackFixture fixture;
  private static LocalStack stack;
  private static RESTCatalog catalog;
  private static Map<String, String> environment;
  private static Path tallyYaml;

  @BeforeAll
  static void startStack() throws IOException {
    // Under target/, not a @TempDir: the services' logs stay for diagnosis.
    fixture = StackFixture.start("sql-pipeline-it");
    root = fixture.root();
    stack = fixture.stack();
    catalog = fixture.catalog();
    stack.kafka().createTopic(TOPIC, PARTITIONS, Map.of("retention.ms", "-1"));

    // What the examples read from the environment; a bounded read from the first offset, so that
    // each job ends after the input, every window fired and the last checkpoint committed.
    environment = stack.boundedSqlScriptEnvironment();
    // Tally's Java pipeline, bounded like the scripts, into its own table.
    tallyYaml =
        TallyYaml.builder(stack.tallyServices())
            .topic(TOPIC)
            .groupId("tally-java")
            .transactionalIdPrefix("tally-sql-it-dlq")
            .bounded(true)
            .table("spending_java")
            .checkpointDirectory(root.resolve("checkpoints"))
            .checkpointInterval(Duration.ofSeconds(1))
            .parallelism(2)
            .writeTo(root.resolve("tally.yaml"));
  }

  @AfterAll
  static void stopStack() throws IOException {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theSeedsSqlAndTallysJavaPipelineWriteTheSameRows() throws Exception {
    Map<Key, Totals> oracle = SeedSqlInput.produce(stack.kafka().bootstrapServers(), PARTITIONS);
    TableIdentifier seedTable = SeedSqlInput.TABLE;

    Cli seed = sql("--file", EXAMPLES.resolve("seed-pipeline.sql").toString());
    assertThat(seed.code).as("exit code; stderr: %s", seed.err).isZero();
    assertThat(seed.out).contains("submitted as job");
    Map<Key, Totals> seedRows = SeedSqlInput.readSeedTable(catalog, seedTable);

    // The window-TVF form of the same query, into a fresh table of the same name.
    assertThat(catalog.dropTable(seedTable, true)).isTrue();
    Cli tvf = sql("--file", EXAMPLES.resolve("seed-pipeline-window-tvf.sql").toString());
    assertThat(tvf.code).as("exit code; stderr: %s", tvf.err).isZero();
    Map<Key, Totals> tvfRows = SeedSqlInput.readSeedTable(catalog, seedTable);

    TallyMain.main(new String[] {"--config", tallyYaml.toString()});
    Map<Key, Totals> javaRows =
        SpendingRows.readTallyTable(catalog, TableIdentifier.of("analytics", "spending_java"));

    assertThat(seedRows).as("the seed's SQL, mapped to Tally's key").isEqualTo(javaRows);
    assertThat(tvfRows).as("the window-TVF SQL").isEqualTo(javaRows);
    // Not vacuous: both equal what the input must give.
    assertThat(javaRows).isEqualTo(oracle);

    // The query command shows the top spenders of a window, as docs/sql.md does.
    Instant window = BASE.plus(Duration.ofHours(1));
    TextTable top =
        new TextTable(List.of("user_id", "currency", "total_spent_cents", "transaction_count"));
    oracle.entrySet().stream()
        .filter(e -> e.getKey().windowStart().equals(window))
        .sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
        .limit(3)
        .forEach(
            e ->
                top.add(
                    List.of(e.getKey().userId(), "EUR", e.getValue().sum(), e.getValue().count())));
    Cli query =
        cli(
            "query",
            "--config",
            tallyYaml.toString(),
            "SELECT user_id, currency, total_spent_cents, transaction_count"
                + " FROM spending_java WHERE window_start = TIMESTAMP '2026-01-15 01:00:00'"
                + " ORDER BY total_spent_cents DESC LIMIT 3");
    assertThat(query.code).as("stderr: %s", query.err).isZero();
    assertThat(query.out).isEqualTo(top.render() + "(3 rows)\n");

    // A result with window_end says per window whether it is final: the bounded run's last
    // commit marked the end of input, so every window is.
    Cli finality =
        cli(
            "query",
            "--config",
            tallyYaml.toString(),
            "SELECT DISTINCT window_start, window_end FROM spending_java"
                + " WHERE window_start = TIMESTAMP '2026-01-15 01:00:00'");
    assertThat(finality.code).as("stderr: %s", finality.err).isZero();
    assertThat(finality.out.lines().toList())
        .satisfies(lines -> assertThat(lines.get(0)).matches("window_start +window_end +final"))
        .satisfies(
            lines ->
                assertThat(lines.get(2))
                    .isEqualTo("2026-01-15 01:00:00Z  2026-01-15 02:00:00Z  yes"))
        .satisfies(lines -> assertThat(lines.get(3)).isEqualTo("(1 row)"))
        .satisfies(
            lines ->
                assertThat(lines.get(4))
                    .matches(
                        "final: every window \\(tally.watermark of snapshot -?\\d+: the job's"
                            + " input has ended\\)"));
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aBadStatementIsRejectedAtItsLineBeforeAnythingRuns() throws Exception {
    // The seed's script in its own namespace, its INSERT naming a column that does not exist.
    String seed = Files.readString(EXAMPLES.resolve("seed-pipeline.sql"), StandardCharsets.UTF_8);
    assertThat(seed).contains("SUM(amount_cents) AS total_spent_cents");
    String bad =
        seed.replace("analytics", "rejected")
            .replace("SUM(amount_cents) AS total_spent_cents", "SUM(amount) AS total_spent_cents");
    int badLine = lineOf(bad, "SUM(amount) AS");
    Path file = root.resolve("bad.sql");
    Files.writeString(file, bad, StandardCharsets.UTF_8);

    Cli cli = sql("--file", file.toString());
    System.out.println("The runner's answer to " + file.getFileName() + ":\n" + cli.err);

    assertThat(cli.code).isEqualTo(SqlCommand.SCRIPT_ERROR);
    assertThat(cli.err)
        .as("file, line and column, Flink's message, and the statement")
        .startsWith(file + ":" + badLine + ":")
        .contains("Column 'amount' not found")
        .contains("in the statement at " + file + ":" + lineOf(bad, "INSERT INTO"));
    assertThat(cli.out).doesNotContain("submitted");
    // Its CREATE DATABASE and CREATE TABLE come before the bad INSERT, yet never ran.
    assertThat(catalog.namespaceExists(Namespace.of("rejected"))).isFalse();

    // The same through the runner's API, watching for any job the environment submits.
    AtomicInteger submitted = new AtomicInteger();
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.registerJobListener(countingSubmissions(submitted));
    SqlScript script = SqlScript.parse(file.toString(), bad, environment::get);
    SqlRunner runner = new SqlRunner(SqlCommand.jobConfiguration(config()));
    SqlScriptException problem = null;
    try {
      runner.run(script, env);
    } catch (SqlScriptException e) {
      problem = e;
    }
    assertThat(problem).isNotNull();
    assertThat(problem.line()).isEqualTo(badLine);
    assertThat(submitted).as("jobs submitted").hasValue(0);
    assertThat(catalog.namespaceExists(Namespace.of("rejected"))).isFalse();

    // The listener does see a job when a script is good: this check could fail.
    SqlScript good =
        SqlScript.parse(
            "good.sql",
            """
            CREATE TABLE sink (n INT) WITH ('connector' = 'blackhole');
            INSERT INTO sink SELECT * FROM (VALUES (1), (2)) AS t(n);
            """,
            environment::get);
    TableResult result = runner.run(good, env).orElseThrow();
    result.await(2, TimeUnit.MINUTES);
    assertThat(submitted).hasValue(1);
  }

  @Test
  void tallysTableDefinitionIsValidFlinkSql() throws Exception {
    Cli cli = sql("--dry-run", "--file", EXAMPLES.resolve("tally-table.sql").toString());

    assertThat(cli.code).as("stderr: %s", cli.err).isZero();
    assertThat(cli.out).contains("3 statements valid");
  }

  private static TallyConfig config() {
    return TallyConfig.read(ConfigSource.load(tallyYaml, List.of(), environment::get));
  }

  private static int lineOf(String text, String needle) {
    List<String> lines = text.lines().toList();
    List<Integer> found = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(needle) && !lines.get(i).strip().startsWith("--")) {
        found.add(i + 1);
      }
    }
    assertThat(found).as("lines with %s", needle).hasSize(1);
    return found.get(0);
  }

  /** {@code TallyMain sql} in this JVM, with the stack's environment and tally.yaml. */
  private static Cli sql(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("sql"));
    all.addAll(List.of(args));
    all.addAll(List.of("--config", tallyYaml.toString()));
    return cli(all.toArray(String[]::new));
  }

  /** TallyMain's command line in this JVM, with the stack's environment. */
  private static Cli cli(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Map<String, String> env = new HashMap<>(environment);
    int code =
        TallyMain.run(
            args,
            env::get,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Cli(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static JobListener countingSubmissions(AtomicInteger submitted) {
    return new JobListener() {
      @Override
      public void onJobSubmitted(JobClient jobClient, Throwable throwable) {
        submitted.incrementAndGet();
      }

      @Override
      public void onJobExecuted(JobExecutionResult result, Throwable throwable) {}
    };
  }

  private record Cli(int code, String out, String err) {}
}
