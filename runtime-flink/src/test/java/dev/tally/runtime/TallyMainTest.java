package dev.tally.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.runtime.cli.Terminal;
import dev.tally.runtime.sql.SqlCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * TallyMain's command line, through the same entry as {@code main}: each command's help, and how a
 * wrong command line is reported (exit code 2, the problem and the usage on stderr, nothing run).
 */
class TallyMainTest {

  /** The least configuration that validates without a file. */
  private static final List<String> REQUIRED =
      List.of(
          "--set",
          "kafka.bootstrap-servers=127.0.0.1:9092",
          "--set",
          "state.checkpoint-directory=file:///tmp/tally-checkpoints",
          "--set",
          "iceberg.catalog.warehouse=file:///tmp/tally-warehouse");

  @TempDir Path dir;

  private record Run(int code, String out, String err) {}

  private static Run run(Map<String, String> environment, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        TallyMain.run(
            args,
            environment::get,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static Run run(String... args) throws Exception {
    return run(Map.of(), args);
  }

  /** {@code args}, then the least configuration. */
  private static Run runConfigured(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(REQUIRED);
    return run(all.toArray(String[]::new));
  }

  private static String[] help(String command) {
    return command.isEmpty() ? new String[] {"--help"} : new String[] {command, "--help"};
  }

  @Test
  void theJobsHelpNamesItsOptionsAndTheSubcommands() throws Exception {
    Run help = run("--help");

    assertThat(help.code).isZero();
    assertThat(help.err).isEmpty();
    assertThat(help.out)
        .startsWith("Usage: TallyMain ")
        .contains("Runs Tally's job")
        .contains(
            "--config FILE",
            "--set KEY=VALUE",
            "--local",
            "--web-port PORT",
            "--print-config",
            "--help")
        .containsPattern("(?m)^  sql +Runs a Flink SQL script")
        .containsPattern("(?m)^  query +Runs batch SQL")
        .containsPattern("(?m)^  replay +Copies selected dead letters");
  }

  @Test
  void sqlsHelpNamesItsOptions() throws Exception {
    Run help = run("sql", "--help");

    assertThat(help.code).isZero();
    assertThat(help.out)
        .startsWith("Usage: TallyMain sql ")
        .contains("Runs a Flink SQL script as one streaming job")
        .contains(
            "--file FILE",
            "--config FILE",
            "--set KEY=VALUE",
            "--local",
            "--web-port PORT",
            "--dry-run",
            "--help")
        .doesNotContain("--print-config", "--max-rows");
  }

  @Test
  void querysHelpNamesItsOptions() throws Exception {
    Run help = run("query", "--help");

    assertThat(help.code).isZero();
    assertThat(help.out)
        .startsWith("Usage: TallyMain query ")
        .contains("Runs batch SQL over the Iceberg catalog")
        .contains("--config FILE", "--set KEY=VALUE", "--file FILE", "--max-rows N", "[SQL]")
        .contains("--help")
        .doesNotContain("--local", "--web-port", "--dry-run");
  }

  @Test
  void everyOptionOfEveryCommandIsDescribedInItsHelp() throws Exception {
    PrintStream discard =
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    CommandLine line =
        TallyMain.commandLine(new Terminal(Map.<String, String>of()::get, discard, discard));
    List<CommandLine> commands = new ArrayList<>(List.of(line));
    commands.addAll(line.getSubcommands().values());
    assertThat(commands).hasSize(4);

    for (CommandLine command : commands) {
      String name = command.getCommandName();
      String help = run(help(command == line ? "" : name)).out;
      assertThat(command.getCommandSpec().usageMessage().description())
          .as("%s's one-line description", name)
          .hasSize(1);
      assertThat(command.getCommandSpec().options()).hasSizeGreaterThan(2);
      for (OptionSpec option : command.getCommandSpec().options()) {
        assertThat(option.description()).as("%s %s", name, option.longestName()).hasSize(1);
        // The first words fit on the option's first line of help, whatever the wrapping.
        String firstWords =
            String.join(" ", List.of(option.description()[0].split(" ")).subList(0, 3));
        assertThat(help).as("%s's help", name).contains(option.longestName()).contains(firstWords);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "sql", "query", "replay"})
  void anUnknownOptionFailsNamingItWithTheUsage(String command) throws Exception {
    List<String> args = new ArrayList<>();
    if (!command.isEmpty()) {
      args.add(command);
    }
    args.add("--bogus");
    Run bad = run(args.toArray(String[]::new));

    assertThat(bad.code).isEqualTo(2);
    assertThat(bad.out).isEmpty();
    assertThat(bad.err)
        .startsWith("Unknown option: '--bogus'")
        .contains("Usage: TallyMain" + (command.isEmpty() ? " " : " " + command + " "))
        .doesNotContain("Exception", "\tat ");
  }

  @Test
  void aMisspeltRequiredOptionIsNamedAsUnknownRatherThanTheRequiredOneAsMissing() throws Exception {
    Run bad = run("sql", "--flie", "x.sql");

    assertThat(bad.code).isEqualTo(2);
    assertThat(bad.err).startsWith("Unknown options: '--flie', 'x.sql'\n");
  }

  @Test
  void aValueOfTheWrongTypeIsNamedWithItsOption() throws Exception {
    Run bad = run("--local", "--web-port", "eighty");

    assertThat(bad.code).isEqualTo(2);
    assertThat(bad.err).startsWith("Invalid value for option '--web-port': 'eighty' is not an int");
  }

  @Test
  void anOptionWithoutItsValueIsNamed() throws Exception {
    Run bad = run("--config");

    assertThat(bad.code).isEqualTo(2);
    assertThat(bad.err).startsWith("Missing required parameter for option '--config'");
  }

  @Test
  void aMistypedSubcommandIsAnsweredWithTheNearestOne() throws Exception {
    Run bad = run("sqll", "--file", "x.sql");

    assertThat(bad.code).isEqualTo(2);
    assertThat(bad.err).contains("'sqll'").contains("Did you mean: TallyMain sql?");
  }

  @Test
  void sqlNeedsAFile() throws Exception {
    Run bad = run("sql", "--dry-run");

    assertThat(bad.code).isEqualTo(2);
    assertThat(bad.err).startsWith("Missing required option: '--file FILE'");
  }

  @Test
  void queryTakesEitherAFileOrTheSqlNotBothOrNeither() throws Exception {
    Path file = Files.writeString(dir.resolve("q.sql"), "SELECT 1");

    for (Run bad : List.of(run("query"), run("query", "--file", file.toString(), "SELECT 1"))) {
      assertThat(bad.code).isEqualTo(2);
      assertThat(bad.err)
          .startsWith("give either --file or the SQL, not both or neither")
          .contains("Usage: TallyMain query ");
    }
    Run twoStatements = run("query", "SELECT 1", "SELECT 2");
    assertThat(twoStatements.code).isEqualTo(2);
    assertThat(twoStatements.err).startsWith("Unmatched argument at index 2: 'SELECT 2'");
  }

  @Test
  void replayRefusesABadSelectionBeforeReadingAnything() throws Exception {
    Run reason = run("replay", "--reason", "LAET");
    Run offsets = run("replay", "--from-offset", "5");
    Run times = run("replay", "--since", "2026-12-01T10:00:00Z", "--until", "2026-12-01T09:00:00Z");

    assertThat(List.of(reason, offsets, times))
        .allSatisfy(bad -> assertThat(bad.code).isEqualTo(2));
    assertThat(reason.err).startsWith("--reason LAET: not a reason; one of [MALFORMED,");
    assertThat(offsets.err).startsWith("--from-offset and --to-offset need --source-partition");
    assertThat(times.err).startsWith("--since must be before --until");
    assertThat(times.err).contains("Usage: TallyMain replay ");
  }

  @Test
  void theJobsAndSqlsHelpNameTheMetricsPortOfALocalRun() throws Exception {
    assertThat(run("--help").out).contains("--metrics-port PORT");
    assertThat(run("sql", "--help").out).contains("--metrics-port PORT");
  }

  @Test
  void queryPrintsAtLeastOneRow() throws Exception {
    Run bad = run("query", "--max-rows", "0", "SELECT 1");

    assertThat(bad.code).isEqualTo(2);
    assertThat(bad.err).startsWith("--max-rows must be at least 1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "sql", "query"})
  void aMissingConfigurationFileIsNamed(String command) throws Exception {
    Path missing = dir.resolve("missing.yaml");
    List<String> args = new ArrayList<>();
    if (!command.isEmpty()) {
      args.add(command);
    }
    args.addAll(List.of("--config", missing.toString()));
    args.addAll(command.equals("sql") ? List.of("--file", "x.sql") : List.of());
    args.addAll(command.equals("query") ? List.of("SELECT 1") : List.of());
    Run bad = run(args.toArray(String[]::new));

    assertThat(bad.code).isEqualTo(2);
    assertThat(bad.err).startsWith("--config " + missing + ": no such file");
  }

  @Test
  void everyConfigurationProblemIsReportedAtOnceWithTheUsage() throws Exception {
    Run bad = run("--set", "kafka.bootstrap-servers=${BROKERS}", "--set", "no-equals-sign");

    assertThat(bad.code).isEqualTo(2);
    assertThat(bad.err)
        .startsWith("Invalid configuration (2 problems):")
        .contains("--set no-equals-sign: expected key=value")
        .contains("kafka.bootstrap-servers: environment variable BROKERS is not set")
        .contains("Usage: TallyMain ")
        .doesNotContain("Exception", "\tat ");
  }

  @Test
  void printConfigShowsTheFileWithTheOverridesAppliedAndRunsNothing() throws Exception {
    Path yaml =
        Files.writeString(
            dir.resolve("tally.yaml"),
            """
            kafka:
              bootstrap-servers: ${BROKERS}
            state:
              checkpoint-directory: file:///tmp/tally-checkpoints
            iceberg:
              catalog:
                warehouse: file:///tmp/tally-warehouse
            checkpoints:
              interval: 10s
            """);

    Run printed =
        run(
            Map.of("BROKERS", "b1:9092"),
            "--config",
            dir.resolve("missing.yaml").toString(),
            "--config",
            yaml.toString(),
            "--set",
            "checkpoints.interval=45s",
            "--set",
            "job.name=tally-test",
            "--print-config");

    assertThat(printed.code).as("stderr: %s", printed.err).isZero();
    assertThat(printed.out)
        .startsWith("Effective configuration (secrets masked):")
        .contains("kafka.bootstrap-servers = b1:9092")
        .contains("checkpoints.interval = 45s")
        .contains("job.name = tally-test");
  }

  @Test
  void theJobsOptionsBeforeASubcommandAreRefusedNotIgnored() throws Exception {
    Run bad = run("--config", "tally.yaml", "sql", "--file", "x.sql");

    assertThat(bad.code).isEqualTo(2);
    assertThat(bad.err)
        .startsWith("--config given before 'sql': the options of TallyMain sql go after 'sql'");
  }

  @Test
  void aBadScriptExitsWithTheScriptErrorBeforeAnythingRuns() throws Exception {
    Path script = Files.writeString(dir.resolve("bad.sql"), "SELECT 1;\nSELECT 'abc;\n");

    Run bad = runConfigured("sql", "--file", script.toString());

    assertThat(bad.code).isEqualTo(SqlCommand.SCRIPT_ERROR).isEqualTo(1);
    assertThat(bad.err)
        .isEqualTo(script + ":2:8: string literal opened with ' is never closed" + "\n");
    assertThat(bad.out).isEmpty();
  }

  @Test
  void aDryRunValidatesTheScriptAndSubmitsNothing() throws Exception {
    Path script =
        Files.writeString(
            dir.resolve("pipeline.sql"),
            """
            CREATE TABLE sink (n INT) WITH ('connector' = 'blackhole');
            INSERT INTO sink SELECT * FROM (VALUES (1), (2)) AS t(n);
            """);

    Run dry = runConfigured("sql", "--dry-run", "--file", script.toString());

    assertThat(dry.code).as("stderr: %s", dry.err).isZero();
    assertThat(dry.out)
        .isEqualTo(script + ": 2 statements valid; nothing was changed or submitted\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "sql", "query", "replay"})
  void theCommandLineDocsShowEachCommandsHelpAsItIs(String command) throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "command-line.md"));
    String heading = "## TallyMain" + (command.isEmpty() ? "" : " " + command) + "\n";

    assertThat(docs).contains(heading + "\n```text\n" + run(help(command)).out + "```\n");
  }

  @Test
  void mainReturnsAfterSuccessInsteadOfExitingSoThatFlinksClientCarriesOn() throws Exception {
    // A System.exit here would end the test JVM, and Surefire would fail the run.
    TallyMain.main(new String[] {"--help"});
  }
}
