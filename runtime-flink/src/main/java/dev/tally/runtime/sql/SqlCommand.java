package dev.tally.runtime.sql;

import dev.tally.runtime.cli.CommandLines;
import dev.tally.runtime.cli.ConfigArguments;
import dev.tally.runtime.cli.HelpOption;
import dev.tally.runtime.cli.LocalRunArguments;
import dev.tally.runtime.cli.Terminal;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.runtime.guice.TallyModules;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code TallyMain sql}: runs a Flink SQL script with Tally's state backend, checkpoint policy and
 * restart strategy (see {@link SqlRunner}).
 *
 * <pre>
 * flink run tally-job.jar sql --file pipeline.sql --config tally.yaml
 * java -cp "tally-job.jar:flink-lib/*" dev.tally.runtime.TallyMain sql --local --file pipeline.sql --config tally.yaml
 * </pre>
 *
 * <p>The job gets the state.*, checkpoints.*, restart.* and job.* settings of Tally's
 * configuration; a script's {@code SET 'key' = 'value'} overrides them.
 */
@Command(
    name = "sql",
    description =
        "Runs a Flink SQL script as one streaming job, with Tally's state backend, checkpoint"
            + " policy and restart strategy.")
public final class SqlCommand implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(SqlCommand.class);

  /** Exit code of a bad script: nothing was submitted. */
  public static final int SCRIPT_ERROR = 1;

  @Option(
      names = "--file",
      required = true,
      paramLabel = "FILE",
      description =
          "The Flink SQL script; $${NAME} and $${NAME:-default} in it come from the environment.")
  private Path file;

  @Mixin private ConfigArguments configuration;
  @Mixin private LocalRunArguments run;

  @Option(
      names = "--dry-run",
      description = "Validate every statement; change nothing, submit nothing.")
  private boolean dryRun;

  @Mixin private HelpOption help;

  private final Terminal terminal;

  /** The command, to be added to {@code TallyMain}'s command line. */
  public SqlCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  /**
   * Runs the script.
   *
   * @return the exit code: 0, {@link #SCRIPT_ERROR} or {@link CommandLines#USAGE_ERROR}
   * @throws Exception when the submitted job fails
   */
  @Override
  public Integer call() throws Exception {
    TallyConfig config = configuration.load(terminal.environment());
    LOG.info("{}", config.describe());
    SqlScript script;
    try {
      script = SqlScript.parse(file.toString(), readScript(file), terminal.environment());
    } catch (IOException e) {
      terminal.err().println(file + ": cannot be read: " + e.getMessage());
      return CommandLines.USAGE_ERROR;
    } catch (SqlScriptException e) {
      terminal.err().println(e.getMessage());
      return SCRIPT_ERROR;
    }

    Configuration flink = jobConfiguration(config);
    SqlRunner runner = new SqlRunner(flink);
    try {
      if (dryRun) {
        runner.validate(script);
        terminal
            .out()
            .printf(
                "%s: %d statements valid; nothing was changed or submitted%n",
                script.name(), script.statements().size());
        return 0;
      }
      StreamExecutionEnvironment env = run.environment(flink, config.job());
      Optional<TableResult> result = runner.run(script, env);
      if (result.isEmpty()) {
        terminal
            .out()
            .printf("%s: no INSERT INTO; statements executed, no job submitted%n", script.name());
        return 0;
      }
      String jobId =
          result.get().getJobClient().map(c -> c.getJobID().toString()).orElse("(unknown)");
      terminal.out().printf("%s: submitted as job %s%n", script.name(), jobId);
      if (env.getConfiguration().get(DeploymentOptions.ATTACHED)) {
        // Like the Java pipeline's execute(): an attached run lasts as long as its job.
        result.get().await();
      }
      return 0;
    } catch (SqlScriptException e) {
      terminal.err().println(e.getMessage());
      return SCRIPT_ERROR;
    }
  }

  /**
   * The Flink options of a script's job: the Java pipeline's state backend, checkpoint policy and
   * restart strategy, its job name and parallelism. Not its pipeline rules (no Kryo, explicit
   * uids): Flink's planner generates SQL operators, which Tally does not control.
   */
  public static Configuration jobConfiguration(TallyConfig config) {
    Configuration flink = new Configuration();
    TallyModules.sqlJobSettings(config).forEach(s -> s.applyTo(flink));
    flink.set(PipelineOptions.NAME, config.job().name());
    if (config.job().parallelism() > 0) {
      flink.set(CoreOptions.DEFAULT_PARALLELISM, config.job().parallelism());
    }
    flink.set(PipelineOptions.MAX_PARALLELISM, config.job().maxParallelism());
    return flink;
  }

  static String readScript(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }
}
