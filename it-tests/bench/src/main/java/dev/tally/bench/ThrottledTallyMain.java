package dev.tally.bench;

import dev.tally.runtime.config.ConfigSource;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.runtime.guice.TallyModules;
import dev.tally.runtime.job.TallyJob;
import dev.tally.stack.HelpOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.SinkTransformation;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Bench only: Tally's job, as {@code TallyMain --local} builds it, with slow spending writers, to
 * see checkpoints under backpressure where it happens in production: downstream of the network
 * exchange into Iceberg's writers, not in the aggregator's task. After the job's topology is built,
 * the spending sink's transformation is swapped for one around {@link ThrottledWriterSink}; every
 * operator keeps its uid and chaining. Production code knows nothing of it.
 *
 * <pre>
 * ThrottledTallyMain [--writer-rows-per-second N --lifted-by FILE] [--flink key=value]...
 *     --local --web-port P --config tally.yaml [--set k=v]...
 * </pre>
 *
 * It runs in the job's JVM, on the job jar and the Flink libraries, with the bench's classes and
 * picocli behind them ({@link Backpressure}).
 */
@Command(
    name = "ThrottledTallyMain",
    description =
        "Tally's job on a local MiniCluster with rate-limited spending writers (bench only).")
public final class ThrottledTallyMain implements Callable<Integer> {
  /** The name of the operator whose output the spending sink takes (IcebergSpendingSink). */
  private static final String SPENDING_ROWS = "Spending rows: insert or replace";

  @Mixin private HelpOption help;

  @Option(
      names = "--writer-rows-per-second",
      paramLabel = "ROWS",
      defaultValue = "0",
      description =
          "Rows per second each spending writer subtask takes in; 0, the default, leaves them"
              + " unthrottled.")
  private int rowsPerSecond;

  @Option(
      names = "--lifted-by",
      paramLabel = "FILE",
      defaultValue = "fault-lifted",
      description = "The throttle ends once this file exists (default: ${DEFAULT-VALUE}).")
  private Path liftedBy;

  @Option(
      names = "--flink",
      paramLabel = "KEY=VALUE",
      description =
          "A Flink option set on the local cluster (e.g. network buffer debloating); repeatable.")
  private List<String> flinkSettings = new ArrayList<>();

  @Option(
      names = "--config",
      required = true,
      paramLabel = "FILE",
      description = "Tally's YAML configuration.")
  private Path config;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description = "Overrides one configuration key; repeatable.")
  private List<String> overrides = new ArrayList<>();

  @Option(
      names = "--web-port",
      paramLabel = "PORT",
      defaultValue = "8081",
      description = "Port of the web UI and REST API (default: ${DEFAULT-VALUE}).")
  private int webPort;

  @Option(
      names = "--local",
      description = "Accepted as TallyMain accepts it; this main always runs locally.")
  private boolean local;

  private ThrottledTallyMain() {}

  /** Runs the throttled job; {@code --help} for the options. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new ThrottledTallyMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    TallyConfig tally = TallyConfig.read(ConfigSource.load(config, overrides, System::getenv));
    TallyJob job = TallyModules.injector(tally).getInstance(TallyJob.class);
    Configuration flink = job.configuration();
    // The embedded cluster as TallyMain --local sizes it (ExecutionEnvironments), then the
    // bench's own TaskManager options, which may differ from Tally's (a mode without debloating).
    tally.job().applyLocalTo(flink);
    flink.set(RestOptions.PORT, webPort);
    for (String setting : flinkSettings) {
      int eq = setting.indexOf('=');
      if (eq <= 0) {
        throw new CommandLine.ParameterException(
            new CommandLine(this), "--flink expects KEY=VALUE, not " + setting);
      }
      flink.setString(setting.substring(0, eq), setting.substring(eq + 1));
    }
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironmentWithWebUI(flink);
    job.attachTo(env);
    if (rowsPerSecond > 0) {
      throttleSpendingWriters(env);
    }
    env.execute(tally.job().name());
    return 0;
  }

  /**
   * Swaps the spending sink's transformation for one of the same uid, name and parallelism around
   * {@link ThrottledWriterSink}: Flink then expands it as it would the real sink (Tally's shuffle,
   * Iceberg's writers, pre-commit topology and committer), with slow writers.
   */
  private void throttleSpendingWriters(StreamExecutionEnvironment env) {
    List<Transformation<?>> transformations = env.getTransformations();
    int found = -1;
    for (int i = 0; i < transformations.size(); i++) {
      if (transformations.get(i) instanceof SinkTransformation<?, ?> sink
          && SPENDING_ROWS.equals(sink.getInputs().get(0).getName())) {
        if (found >= 0) {
          throw new IllegalStateException("two sinks read \"" + SPENDING_ROWS + "\"");
        }
        found = i;
      }
    }
    if (found < 0) {
      throw new IllegalStateException(
          "no sink reads \"" + SPENDING_ROWS + "\": the spending sink's topology changed");
    }
    transformations.set(found, throttled((SinkTransformation<?, ?>) transformations.get(found)));
  }

  private <I, O> SinkTransformation<I, O> throttled(SinkTransformation<I, O> real) {
    SinkTransformation<I, O> slow =
        new SinkTransformation<>(
            real.getInputStream(),
            ThrottledWriterSink.around(real.getSink(), rowsPerSecond, liftedBy),
            real.getOutputType(),
            real.getName(),
            real.getParallelism(),
            real.isParallelismConfigured(),
            real.getSinkOperatorsUidHashes());
    if (real.getUid() != null) {
      slow.setUid(real.getUid());
    }
    if (real.getMaxParallelism() > 0) {
      slow.setMaxParallelism(real.getMaxParallelism());
    }
    if (real.getChainingStrategy() != null) {
      slow.setChainingStrategy(real.getChainingStrategy());
    }
    return slow;
  }
}
