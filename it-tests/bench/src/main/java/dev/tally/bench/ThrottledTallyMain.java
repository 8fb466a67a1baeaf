package dev.tally.bench;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Stage;
import com.google.inject.util.Modules;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.ports.out.SpendingSink;
import dev.tally.runtime.config.ConfigSource;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.runtime.guice.TallyModules;
import dev.tally.runtime.job.TallyJob;
import dev.tally.stack.HelpOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Bench only: Tally's job with a slow spending sink, to see checkpoints under backpressure. The
 * same modules as {@code TallyMain} builds, with one binding overridden: the {@link SpendingSink}
 * port gets a rate limit in front of the real Iceberg sink. Production code knows nothing of it.
 *
 * <pre>
 * ThrottledTallyMain --rows-per-second N --local --web-port P --config tally.yaml [--set k=v]...
 * </pre>
 *
 * It runs in the job's JVM, on the job jar and the Flink libraries, with the bench's classes and
 * picocli behind them ({@link Backpressure}).
 */
@Command(
    name = "ThrottledTallyMain",
    description =
        "Tally's job on a local MiniCluster with a rate limit in front of the Iceberg sink (bench"
            + " only).")
public final class ThrottledTallyMain implements Callable<Integer> {
  @Mixin private HelpOption help;

  @Option(
      names = "--rows-per-second",
      required = true,
      paramLabel = "ROWS",
      description = "Rows per second each sink subtask lets through.")
  private int rowsPerSecond;

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
    SpendingSink real = TallyModules.injector(tally).getInstance(SpendingSink.class);
    Injector injector =
        Guice.createInjector(
            Stage.PRODUCTION,
            Modules.override(TallyModules.of(tally))
                .with(
                    binder ->
                        binder
                            .bind(SpendingSink.class)
                            .toInstance(new ThrottledSink(real, rowsPerSecond))));
    TallyJob job = injector.getInstance(TallyJob.class);
    Configuration flink = job.configuration();
    flink.set(RestOptions.PORT, webPort);
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironmentWithWebUI(flink);
    job.attachTo(env);
    env.execute(tally.job().name());
    return 0;
  }

  /** The real sink behind a per-subtask rate limit. */
  private record ThrottledSink(SpendingSink delegate, int rowsPerSecond) implements SpendingSink {
    @Override
    public void attach(DataStream<WindowedSpending> aggregates) {
      delegate.attach(
          aggregates
              .map(new Throttle(rowsPerSecond))
              .uid("bench-sink-throttle")
              .name("Bench: throttle to " + rowsPerSecond + " rows/s per subtask"));
    }
  }

  /** Sleeps as needed so rows pass at most at the given rate: the sink's input backs up. */
  static final class Throttle extends RichMapFunction<WindowedSpending, WindowedSpending> {
    private static final long serialVersionUID = 1L;
    private final int rowsPerSecond;
    private transient long started;
    private transient long passed;

    Throttle(int rowsPerSecond) {
      this.rowsPerSecond = rowsPerSecond;
    }

    @Override
    public void open(OpenContext context) {
      started = System.nanoTime();
    }

    @Override
    public WindowedSpending map(WindowedSpending row) throws InterruptedException {
      passed++;
      long due = started + passed * 1_000_000_000L / rowsPerSecond;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
      } else if (wait < -1_000_000_000L) {
        // Idle time is not credit: after a quiet spell the limit applies again at once.
        started = System.nanoTime();
        passed = 0;
      }
      return row;
    }
  }
}
