package dev.tally.runtime;

import dev.tally.adapters.iceberg.IcebergAccessCheck;
import dev.tally.adapters.kafka.DeadLetterSizing;
import dev.tally.adapters.kafka.KafkaAccessCheck;
import dev.tally.adapters.kafka.SinkTopic;
import dev.tally.adapters.kafka.TransactionTimeoutCheck;
import dev.tally.ports.config.InvalidConfigException;
import dev.tally.runtime.cli.CommandLines;
import dev.tally.runtime.cli.ConfigArguments;
import dev.tally.runtime.cli.HelpOption;
import dev.tally.runtime.cli.LocalRunArguments;
import dev.tally.runtime.cli.ReplayCommand;
import dev.tally.runtime.cli.Terminal;
import dev.tally.runtime.config.AnomalyKeys;
import dev.tally.runtime.config.ConfigurationException;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.runtime.guice.TallyModules;
import dev.tally.runtime.job.TallyJob;
import dev.tally.runtime.sql.QueryCommand;
import dev.tally.runtime.sql.SqlCommand;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The job jar's entry point, for {@code flink run} and for local runs. Without a subcommand it runs
 * Tally's job; {@code sql} runs a Flink SQL script ({@link SqlCommand}), {@code query} queries the
 * table ({@link QueryCommand}), {@code replay} copies dead letters back ({@link ReplayCommand}).
 * Each answers {@code --help}; docs/command-line.md shows them all.
 *
 * <pre>
 * flink run -c dev.tally.runtime.TallyMain tally-job.jar --config tally.yaml [--set key=value]...
 * java -cp "tally-job.jar:flink-lib/*" dev.tally.runtime.TallyMain --local --config tally.yaml
 * flink run tally-job.jar sql --file pipeline.sql --config tally.yaml
 * java -cp "tally-job.jar:flink-lib/*" dev.tally.runtime.TallyMain query --config tally.yaml "SELECT …"
 * </pre>
 *
 * <p>The job's part only loads and validates configuration (every problem at once, then exit code
 * 2), checks what can only be checked against live services, creates the injector once, and
 * executes.
 */
@Command(
    name = "TallyMain",
    description =
        "Runs Tally's job: spending per user, currency and hour from Kafka into Iceberg, rejected"
            + " records to the dead-letter topic.")
public final class TallyMain implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(TallyMain.class);

  @Mixin private ConfigArguments configuration;
  @Mixin private LocalRunArguments run;

  @Option(
      names = "--print-config",
      description = "Print the effective configuration (secrets masked) and exit.")
  private boolean printConfig;

  @Mixin private HelpOption help;

  private final Terminal terminal;

  private TallyMain(Terminal terminal) {
    this.terminal = terminal;
  }

  /**
   * Runs the command line and exits with its code when that is not 0. On success it returns, so
   * that {@code flink run}'s client carries on (a detached submission, a finished attached job).
   */
  public static void main(String[] args) throws Exception {
    int code = run(args, System::getenv, System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * Runs a command line in this JVM.
   *
   * @param environment variables for the configuration and scripts, usually {@code System::getenv}
   * @return the exit code: 0, {@link SqlCommand#SCRIPT_ERROR} or {@link CommandLines#USAGE_ERROR}
   * @throws Exception when the job fails, as {@code env.execute} reports it
   */
  public static int run(
      String[] args, Function<String, String> environment, PrintStream out, PrintStream err)
      throws Exception {
    Terminal terminal = new Terminal(environment, out, err);
    return CommandLines.execute(commandLine(terminal), args, terminal);
  }

  /** The command tree: the job, {@code sql}, {@code query} and {@code replay}. */
  static CommandLine commandLine(Terminal terminal) {
    return new CommandLine(new TallyMain(terminal))
        .addSubcommand(new SqlCommand(terminal))
        .addSubcommand(new QueryCommand(terminal))
        .addSubcommand(new ReplayCommand(terminal));
  }

  @Override
  public Integer call() throws Exception {
    TallyConfig config = configuration.load(terminal.environment());
    String effective = config.describe();
    if (printConfig) {
      terminal.out().println(effective);
      return 0;
    }
    LOG.info("{}", effective);
    checkAccess(config);
    checkDeadLetterTransactionTimeout(config);
    config = prepareKafkaSinks(config);

    TallyJob job = TallyModules.injector(config).getInstance(TallyJob.class);
    Configuration flink = job.configuration();
    StreamExecutionEnvironment env = run.environment(flink, config.job());
    job.attachTo(env);
    env.execute(config.job().name());
    return 0;
  }

  /**
   * Sizes the dead-letter path for the largest record the source topics can hold (docs/behaviour.md
   * "Record size"), and checks the dead-letter topic and, with anomalies on, the anomaly topic,
   * creating either when it is missing; fails the start naming every setting too small and every
   * topic that cannot work. Tests that start the job in their own cluster call it as the start
   * does.
   *
   * @return {@code config} with the producer's size settings Tally sets
   */
  public static TallyConfig prepareKafkaSinks(TallyConfig config) {
    List<SinkTopic> others =
        config.anomalies().enabled()
            ? List.of(SinkTopic.alerts(AnomalyKeys.KAFKA_TOPIC.name(), config.anomalies().topic()))
            : List.of();
    try {
      return config.withDeadLetter(
          DeadLetterSizing.sizeFor(config.kafka().deadLetter(), config.kafka().source(), others));
    } catch (InvalidConfigException e) {
      throw new ConfigurationException(e.problems());
    }
  }

  /**
   * Asks the brokers, with the source consumer's and the dead-letter producer's own security
   * settings, whether they let each in, and the Iceberg catalog whether it lets the sink in; fails
   * the start naming the keys of every client refused (wrong credentials, a TLS handshake that
   * fails, no authorization).
   */
  private static void checkAccess(TallyConfig config) {
    Duration timeout = Duration.ofSeconds(30);
    List<String> problems = new ArrayList<>();
    problems.addAll(
        KafkaAccessCheck.problems(
            "the source consumer",
            "kafka.properties. / kafka.source.properties.",
            config.kafka().source().bootstrapServers(),
            config.kafka().source().clientProperties(),
            config.kafka().source().topics() == null ? List.of() : config.kafka().source().topics(),
            timeout));
    problems.addAll(
        KafkaAccessCheck.problems(
            "the dead-letter producer",
            "kafka.properties. / kafka.dead-letter.properties.",
            config.kafka().deadLetter().bootstrapServers(),
            config.kafka().deadLetter().producerProperties(),
            List.of(),
            timeout));
    problems.addAll(IcebergAccessCheck.problems(config.iceberg()));
    if (!problems.isEmpty()) {
      throw new ConfigurationException(problems);
    }
  }

  /**
   * Compares the dead-letter transaction timeout with the live broker's maximum; fails the start if
   * it exceeds. A broker that cannot be asked within the time (a client outside the cluster's
   * network) only skips this part of the check, with a warning: the producer itself would then fail
   * at its first transaction, loudly.
   */
  private static void checkDeadLetterTransactionTimeout(TallyConfig config) throws Exception {
    Properties admin = new Properties();
    admin.putAll(config.kafka().deadLetter().producerProperties());
    admin.put("bootstrap.servers", config.kafka().deadLetter().bootstrapServers());
    Duration maximum;
    try (Admin client = Admin.create(admin)) {
      maximum = TransactionTimeoutCheck.brokerMaximum(client, Duration.ofSeconds(30));
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn(
          "Could not read the broker's {} from {} ({}); the dead-letter transaction timeout {} is"
              + " not checked against it",
          TransactionTimeoutCheck.BROKER_MAX_TIMEOUT,
          config.kafka().deadLetter().bootstrapServers(),
          e.toString(),
          config.kafka().deadLetter().transactionTimeout());
      return;
    }
    List<String> problems =
        TransactionTimeoutCheck.brokerProblems(
            config.kafka().deadLetter().transactionTimeout(), maximum);
    if (!problems.isEmpty()) {
      throw new ConfigurationException(
          problems.stream().map(p -> "kafka.dead-letter.transaction-timeout: " + p).toList());
    }
  }
}
