package dev.tally.it.iceberg;

import static dev.tally.it.iceberg.IcebergRestStack.spending;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Stage;
import dev.tally.adapters.iceberg.IcebergSinkConfig;
import dev.tally.adapters.iceberg.IcebergSinkModule;
import dev.tally.adapters.iceberg.MaintenanceConfig;
import dev.tally.adapters.iceberg.WriteDistribution;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.ports.out.SpendingSink;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A bounded run (a backfill) that fails over near its end still commits its last rows, in every
 * distribution mode, through a real REST catalog on real S3 storage.
 *
 * <p>The path: checkpoints complete and commit; the input ends and the job fails over; the restored
 * job reads what came after its checkpoint and ends before it takes a checkpoint of its own.
 * Iceberg's pre-commit aggregator, restored without state, then labelled its final committable
 * "checkpoint 1", at or below what the table had already committed, and the committer skipped it as
 * done: the rows after the last checkpoint were lost. The restored attempt here reads its rest at
 * full speed while its first checkpoint is a whole interval away (minimum pause = interval), so it
 * always ends first.
 */
class IcebergSinkFailoverIT {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static final int ROWS = 1_000;
  private static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(2);

  private static IcebergRestStack stack;

  @BeforeAll
  static void startStack() {
    stack = IcebergRestStack.start("IcebergSinkFailoverIT");
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = WriteDistribution.class,
      names = {"HASH", "NONE"})
  void aBoundedRunThatFailsOverNearItsEndCommitsEveryRow(WriteDistribution distribution)
      throws Exception {
    FailOnceAtEndOfInput.reset();
    String tableName = "failover_" + distribution.name().toLowerCase(java.util.Locale.ROOT);
    IcebergSinkConfig options =
        stack
            .sinkConfig("failover_it", tableName)
            .distribution(distribution)
            .writeParallelism(2)
            .maintenance(MaintenanceConfig.disabled())
            .build();

    StreamExecutionEnvironment env = env();
    SpendingSink sink =
        Guice.createInjector(Stage.PRODUCTION, new IcebergSinkModule(options))
            .getInstance(SpendingSink.class);
    sink.attach(
        env.fromSource(
                new DataGeneratorSource<>(
                    new OneRowPerUser(),
                    ROWS,
                    RateLimiterStrategy.noOp(),
                    TypeInformation.of(WindowedSpending.class)),
                WatermarkStrategy.noWatermarks(),
                "rows")
            .setParallelism(1)
            .transform(
                "fail once at the end of input",
                TypeInformation.of(WindowedSpending.class),
                new FailOnceAtEndOfInput())
            .setParallelism(1));

    env.execute("iceberg-sink-failover-" + distribution);

    assertThat(FailOnceAtEndOfInput.FAILED).as("the job failed over at the end of input").isTrue();
    Table table = stack.load("failover_it", tableName);
    assertThat(IcebergRestStack.rows(table))
        .extracting(IcebergRestStack.SpendingRow::userId)
        .hasSize(ROWS)
        .doesNotHaveDuplicates();
  }

  private static StreamExecutionEnvironment env() {
    Configuration conf = new Configuration();
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, CHECKPOINT_INTERVAL);
    conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, CHECKPOINT_INTERVAL);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    return env;
  }

  /** Row {@code i} is the only row of user {@code i}: a lost row is a missing user. */
  static final class OneRowPerUser implements GeneratorFunction<Long, WindowedSpending> {
    private static final long serialVersionUID = 1L;

    @Override
    public WindowedSpending map(Long index) {
      return spending("user-" + index, "EUR", Instant.parse("2026-11-29T10:00:00Z"), index, 1);
    }
  }

  /**
   * Passes rows on; in the first attempt slowly, so that a checkpoint completes while it runs, and
   * at its end of input it fails the job once, provided a checkpoint completed (else the run proves
   * nothing). Static state: the MiniCluster runs in this JVM, and the flag must survive the restart
   * it causes.
   */
  static final class FailOnceAtEndOfInput extends AbstractStreamOperator<WindowedSpending>
      implements OneInputStreamOperator<WindowedSpending, WindowedSpending>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    static final AtomicBoolean FAILED = new AtomicBoolean();
    static final AtomicInteger COMPLETED_CHECKPOINTS = new AtomicInteger();

    static void reset() {
      FAILED.set(false);
      COMPLETED_CHECKPOINTS.set(0);
    }

    @Override
    public void processElement(StreamRecord<WindowedSpending> element) throws Exception {
      if (!FAILED.get()) {
        // Slow until a checkpoint has completed, then only a little: the first attempt must see
        // one.
        Thread.sleep(COMPLETED_CHECKPOINTS.get() == 0 ? 20 : 2);
      }
      output.collect(element);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
      super.notifyCheckpointComplete(checkpointId);
      COMPLETED_CHECKPOINTS.incrementAndGet();
    }

    @Override
    public void endInput() {
      if (COMPLETED_CHECKPOINTS.get() > 0 && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("injected: a failure at the end of input");
      }
    }
  }
}
