package dev.tally.runtime.sql;

import dev.tally.runtime.config.ConfigSource;
import dev.tally.runtime.config.ConfigurationException;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.runtime.guice.TallyModules;
import dev.tally.runtime.job.ExecutionEnvironments;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code TallyMain sql}: runs a Flink SQL script with Tally's state backend, checkpoint policy and
 * restart strategy (see {@link SqlRunner}).
 *
 * <pre>
 * flink run tally-job.jar sql --file pipeline.sql --config tally.yaml
 * java -cp "tally-job.jar:flink-lib/*" dev.tally.runtime.TallyMain sql --local --file pipeline.sql --config tally.yaml
 * </pre>
 */
public final class SqlCommand {

  private static final Logger LOG = LoggerFactory.getLogger(SqlCommand.class);

  /** Exit code of a bad script: nothing was submitted. */
  public static final int SCRIPT_ERROR = 1;

  /** Exit code of a bad command line or configuration. */
  public static final int USAGE_ERROR = 2;

  static final String USAGE =
      """
      Usage: TallyMain sql --file pipeline.sql [--config tally.yaml] [--set key=value]...
                           [--local [--web-port 8081]] [--dry-run]

        --file FILE      the Flink SQL script; ${VAR} and ${VAR:-default} come from the environment
        --config FILE    Tally's configuration: the job gets its state.*, checkpoints.*, restart.* and
                         job.* settings (a script's SET 'key' = 'value' overrides them)
        --set KEY=VALUE  override one Tally key (repeatable), e.g. --set checkpoints.interval=30s
        --local          run on an embedded MiniCluster with the Flink web UI
        --web-port PORT  web UI port for --local (default 8081)
        --dry-run        validate every statement, change nothing, submit nothing
      """;

  private SqlCommand() {}

  record Arguments(
      Path file, Path config, List<String> overrides, boolean local, int webPort, boolean dryRun) {

    static Arguments parse(String[] args) {
      Path file = null;
      Path config = null;
      List<String> overrides = new ArrayList<>();
      boolean local = false;
      boolean dryRun = false;
      int webPort = 8081;
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        switch (arg) {
          case "--file" -> file = Path.of(value(args, ++i, arg));
          case "--config" -> config = Path.of(value(args, ++i, arg));
          case "--set" -> overrides.add(value(args, ++i, arg));
          case "--local" -> local = true;
          case "--web-port" -> webPort = Integer.parseInt(value(args, ++i, arg));
          case "--dry-run" -> dryRun = true;
          default -> throw new IllegalArgumentException("unknown argument: " + arg);
        }
      }
      if (file == null) {
        throw new IllegalArgumentException("--file is required");
      }
      return new Arguments(file, config, overrides, local, webPort, dryRun);
    }
  }

  /**
   * Runs the command.
   *
   * @param environment variables for the configuration and the script, usually {@code
   *     System::getenv}
   * @return the exit code: 0, {@link #SCRIPT_ERROR} or {@link #USAGE_ERROR}
   * @throws Exception when the submitted job fails
   */
  public static int run(
      String[] args, Function<String, String> environment, PrintStream out, PrintStream err)
      throws Exception {
    if (List.of(args).contains("--help")) {
      out.println(USAGE);
      return 0;
    }
    Arguments arguments;
    TallyConfig config;
    try {
      arguments = Arguments.parse(args);
      config = loadConfig(arguments.config(), arguments.overrides(), environment);
    } catch (IllegalArgumentException | ConfigurationException e) {
      err.println(e.getMessage());
      err.println();
      err.println(USAGE);
      return USAGE_ERROR;
    }
    LOG.info("{}", config.describe());
    SqlScript script;
    try {
      script =
          SqlScript.parse(arguments.file().toString(), readScript(arguments.file()), environment);
    } catch (IOException e) {
      err.println(arguments.file() + ": cannot be read: " + e.getMessage());
      return USAGE_ERROR;
    } catch (SqlScriptException e) {
      err.println(e.getMessage());
      return SCRIPT_ERROR;
    }

    Configuration flink = jobConfiguration(config);
    SqlRunner runner = new SqlRunner(flink);
    try {
      if (arguments.dryRun()) {
        runner.validate(script);
        out.printf(
            "%s: %d statements valid; nothing was changed or submitted%n",
            script.name(), script.statements().size());
        return 0;
      }
      StreamExecutionEnvironment env =
          ExecutionEnvironments.create(flink, config.job(), arguments.local(), arguments.webPort());
      Optional<TableResult> result = runner.run(script, env);
      if (result.isEmpty()) {
        out.printf("%s: no INSERT INTO; statements executed, no job submitted%n", script.name());
        return 0;
      }
      String jobId =
          result.get().getJobClient().map(c -> c.getJobID().toString()).orElse("(unknown)");
      out.printf("%s: submitted as job %s%n", script.name(), jobId);
      if (env.getConfiguration().get(DeploymentOptions.ATTACHED)) {
        // Like the Java pipeline's execute(): an attached run lasts as long as its job.
        result.get().await();
      }
      return 0;
    } catch (SqlScriptException e) {
      err.println(e.getMessage());
      return SCRIPT_ERROR;
    }
  }

  /** Tally's configuration, from a YAML file (optional), overrides and the environment. */
  static TallyConfig loadConfig(
      Path yaml, List<String> overrides, Function<String, String> environment) {
    if (yaml != null && !Files.isRegularFile(yaml)) {
      throw new IllegalArgumentException("--config " + yaml + ": no such file");
    }
    return TallyConfig.read(ConfigSource.load(yaml, overrides, environment));
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

  /** The value of {@code option} at {@code args[i]}. */
  static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }
}
