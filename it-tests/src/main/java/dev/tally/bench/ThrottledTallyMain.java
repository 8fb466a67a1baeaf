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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Bench only: Tally's job with a slow spending sink, to see checkpoints under backpressure. The
 * same modules as {@code TallyMain} builds, with one binding overridden: the {@link SpendingSink}
 * port gets a rate limit in front of the real Iceberg sink. Production code knows nothing of it.
 *
 * <pre>
 * ThrottledTallyMain ROWS_PER_SECOND_PER_SUBTASK --local --web-port P --config tally.yaml [--set k=v]...
 * </pre>
 */
public final class ThrottledTallyMain {

  private ThrottledTallyMain() {}

  public static void main(String[] args) throws Exception {
    int rowsPerSecond = Integer.parseInt(args[0]);
    Path config = null;
    List<String> overrides = new ArrayList<>();
    int webPort = 8081;
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--config" -> config = Path.of(args[++i]);
        case "--set" -> overrides.add(args[++i]);
        case "--web-port" -> webPort = Integer.parseInt(args[++i]);
        case "--local" -> {}
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
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
