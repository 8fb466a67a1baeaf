package dev.tally.runtime;

import dev.tally.adapters.kafka.TransactionTimeoutCheck;
import dev.tally.runtime.config.ConfigSource;
import dev.tally.runtime.config.ConfigurationException;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.runtime.guice.TallyModules;
import dev.tally.runtime.job.ExecutionEnvironments;
import dev.tally.runtime.job.TallyJob;
import dev.tally.runtime.sql.QueryCommand;
import dev.tally.runtime.sql.SqlCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's entry point, for {@code flink run} and for local runs:
 *
 * <pre>
 * flink run -c dev.tally.runtime.TallyMain tally-job.jar --config tally.yaml [--set key=value]...
 * java -cp "tally-job.jar:flink-lib/*" dev.tally.runtime.TallyMain --local --config tally.yaml
 * flink run tally-job.jar sql --file pipeline.sql --config tally.yaml     (see SqlCommand)
 * java -cp "tally-job.jar:flink-lib/*" dev.tally.runtime.TallyMain query --config tally.yaml "SELECT …"
 * </pre>
 *
 * It only loads and validates configuration (every problem at once, then exit code 2), checks what
 * can only be checked against live services, creates the injector once, and executes.
 */
public final class TallyMain {

  private static final Logger LOG = LoggerFactory.getLogger(TallyMain.class);

  static final String USAGE =
      """
      Usage: TallyMain [--config tally.yaml] [--set key=value]... [--local [--web-port 8081]] [--print-config]
             TallyMain sql --file pipeline.sql [--config tally.yaml] ...   (a Flink SQL script; sql --help)
             TallyMain query [--config tally.yaml] "SELECT ..."            (look at the table; query --help)

        --config FILE    YAML configuration (see docs/configuration.md); ${ENV} references are resolved
        --set KEY=VALUE  override one key (repeatable), e.g. --set checkpoints.interval=30s
        --local          run on an embedded MiniCluster with the Flink web UI (needs Flink on the class path)
        --web-port PORT  web UI port for --local (default 8081)
        --print-config   print the effective configuration (secrets masked) and exit
      """;

  private TallyMain() {}

  /** Parsed command line. */
  record Arguments(
      Path config, List<String> overrides, boolean local, int webPort, boolean printConfig) {

    static Arguments parse(String[] args) {
      Path config = null;
      List<String> overrides = new ArrayList<>();
      boolean local = false;
      boolean print = false;
      int webPort = 8081;
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        switch (arg) {
          case "--config" -> config = Path.of(value(args, ++i, arg));
          case "--set" -> overrides.add(value(args, ++i, arg));
          case "--local" -> local = true;
          case "--web-port" -> webPort = Integer.parseInt(value(args, ++i, arg));
          case "--print-config" -> print = true;
          default -> throw new IllegalArgumentException("unknown argument: " + arg);
        }
      }
      if (config != null && !Files.isRegularFile(config)) {
        throw new IllegalArgumentException("--config " + config + ": no such file");
      }
      return new Arguments(config, overrides, local, webPort, print);
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      return args[i];
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && (args[0].equals("sql") || args[0].equals("query"))) {
      String[] rest = Arrays.copyOfRange(args, 1, args.length);
      int code =
          args[0].equals("sql")
              ? SqlCommand.run(rest, System::getenv, System.out, System.err)
              : QueryCommand.run(rest, System::getenv, System.out, System.err);
      if (code != 0) {
        System.exit(code);
      }
      return;
    }
    if (List.of(args).contains("--help")) {
      System.out.println(USAGE);
      return;
    }
    Arguments arguments;
    TallyConfig config;
    try {
      arguments = Arguments.parse(args);
      config =
          TallyConfig.read(
              ConfigSource.load(arguments.config(), arguments.overrides(), System::getenv));
    } catch (IllegalArgumentException | ConfigurationException e) {
      System.err.println(e.getMessage());
      System.err.println();
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    String effective = config.describe();
    if (arguments.printConfig()) {
      System.out.println(effective);
      return;
    }
    LOG.info("{}", effective);
    checkDeadLetterTransactionTimeout(config);

    TallyJob job = TallyModules.injector(config).getInstance(TallyJob.class);
    Configuration flink = job.configuration();
    StreamExecutionEnvironment env =
        ExecutionEnvironments.create(flink, config.job(), arguments.local(), arguments.webPort());
    job.attachTo(env);
    env.execute(config.job().name());
  }

  /**
   * Compares the dead-letter transaction timeout with the live broker's maximum; fails the start if
   * it exceeds.
   */
  private static void checkDeadLetterTransactionTimeout(TallyConfig config) throws Exception {
    Properties admin = new Properties();
    admin.putAll(config.kafka().deadLetter().producerProperties());
    admin.put("bootstrap.servers", config.kafka().deadLetter().bootstrapServers());
    Duration maximum;
    try (Admin client = Admin.create(admin)) {
      maximum = TransactionTimeoutCheck.brokerMaximum(client, Duration.ofSeconds(30));
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
