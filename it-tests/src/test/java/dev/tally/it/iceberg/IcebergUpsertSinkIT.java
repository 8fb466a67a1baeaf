package dev.tally.it.iceberg;

import static dev.tally.it.iceberg.IcebergRestStack.row;
import static dev.tally.it.iceberg.IcebergRestStack.spending;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.inject.Guice;
import com.google.inject.Stage;
import dev.tally.adapters.iceberg.IcebergSinkConfig;
import dev.tally.adapters.iceberg.IcebergSinkModule;
import dev.tally.adapters.iceberg.MaintenanceConfig;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.ports.out.SpendingSink;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Upserts and exactly-once visibility of the Iceberg sink, in a Flink MiniCluster at parallelism 2,
 * through a real REST catalog on real S3 storage.
 */
class IcebergUpsertSinkIT {

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static final Instant TEN = Instant.parse("2026-11-29T10:00:00Z");
  private static final Instant ELEVEN = Instant.parse("2026-11-29T11:00:00Z");

  private static IcebergRestStack stack;

  @BeforeAll
  static void startStack() {
    stack = IcebergRestStack.start("IcebergUpsertSinkIT");
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  /** Rows that have passed into the sink; static because the MiniCluster runs in this JVM. */
  static final AtomicInteger PASSED = new AtomicInteger();

  static final class CountPassing implements MapFunction<WindowedSpending, WindowedSpending> {
    private static final long serialVersionUID = 1L;

    @Override
    public WindowedSpending map(WindowedSpending value) {
      PASSED.incrementAndGet();
      return value;
    }
  }

  private static IcebergSinkConfig options(String table) {
    // Two writers although the test source runs at parallelism 1. Maintenance is off: these tests
    // look at the sink's own commits, and IcebergMaintenanceIT covers maintenance.
    return stack
        .sinkConfig("upsert_it", table)
        .writeParallelism(2)
        .maintenance(MaintenanceConfig.disabled())
        .build();
  }

  private static StreamExecutionEnvironment env(Duration checkpointInterval, Duration minPause) {
    Configuration conf = new Configuration();
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval);
    conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, minPause);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    return env;
  }

  private static void attach(IcebergSinkConfig options, DataStream<WindowedSpending> stream) {
    SpendingSink sink =
        Guice.createInjector(Stage.PRODUCTION, new IcebergSinkModule(options))
            .getInstance(SpendingSink.class);
    sink.attach(stream);
  }

  private static DataStream<WindowedSpending> source(
      StreamExecutionEnvironment env, WindowedSpending... rows) {
    // Parallelism 1 keeps the versions of a key in order, as the keyed aggregator does in the job.
    return env.fromData(TypeInformation.of(WindowedSpending.class), rows)
        .setParallelism(1)
        .map(new CountPassing())
        .setParallelism(1)
        .returns(TypeInformation.of(WindowedSpending.class));
  }

  /**
   * The given rows, then the last one again at a slow pace forever: an unbounded source, so that no
   * end of input makes the job take a final checkpoint on its own.
   */
  static final class RowsThenRepeatLast implements GeneratorFunction<Long, WindowedSpending> {
    private static final long serialVersionUID = 1L;

    // Static, not fields: the domain records are not Serializable, and this function must be.
    static final WindowedSpending ALICE_V1 = spending("alice", "EUR", TEN, 1_000, 1);
    static final WindowedSpending ALICE_USD = spending("alice", "USD", TEN, 700, 1);
    static final WindowedSpending BOB = spending("bob", "EUR", ELEVEN, -200, 1);
    static final WindowedSpending ALICE_V2 = spending("alice", "EUR", TEN, 3_500, 2);
    static final List<WindowedSpending> ROWS = List.of(ALICE_V1, ALICE_USD, BOB, ALICE_V2);

    @Override
    public WindowedSpending map(Long index) {
      return ROWS.get((int) Math.min(index, ROWS.size() - 1));
    }
  }

  @Test
  void nothingIsVisibleBeforeTheCheckpointAndThenOneRowPerKeyWithItsLatestValues(
      @InjectMiniCluster MiniCluster miniCluster) throws Exception {
    PASSED.set(0);
    IcebergSinkConfig options = options("first_checkpoint");
    // No periodic checkpoints: the only checkpoint is the one this test triggers.
    Configuration conf = new Configuration();
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    attach(
        options,
        env.fromSource(
                new DataGeneratorSource<>(
                    new RowsThenRepeatLast(),
                    Long.MAX_VALUE,
                    RateLimiterStrategy.perSecond(20),
                    TypeInformation.of(WindowedSpending.class)),
                WatermarkStrategy.noWatermarks(),
                "rows")
            .setParallelism(1) // keeps the versions of a key in order, as the keyed aggregator does
            .map(new CountPassing())
            .setParallelism(1)
            .returns(TypeInformation.of(WindowedSpending.class)));
    Table table = stack.load("upsert_it", "first_checkpoint");

    JobClient job = env.executeAsync("upsert-before-and-after-checkpoint");
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> PASSED.get() >= 8);

      // Every row, both versions of alice's EUR row included, has reached the writers, but
      // nothing is committed until a checkpoint completes.
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                table.refresh();
                assertThat(table.currentSnapshot()).as("committed snapshot").isNull();
                assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
              });
      assertThat(IcebergRestStack.rows(table)).isEmpty();

      miniCluster.triggerCheckpoint(job.getJobID()).get(60, TimeUnit.SECONDS);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                table.refresh();
                return table.currentSnapshot() != null;
              });
    } finally {
      job.cancel().get(60, TimeUnit.SECONDS);
    }

    table.refresh();
    assertThat(table.currentSnapshot().summary())
        .containsEntry("flink.max-committed-checkpoint-id", "1");
    assertThat(IcebergRestStack.rows(table))
        .containsExactlyInAnyOrder(
            row(RowsThenRepeatLast.ALICE_V2),
            row(RowsThenRepeatLast.ALICE_USD),
            row(RowsThenRepeatLast.BOB));
  }

  @Test
  void aLaterCheckpointReplacesTheRowOfTheSameKey() throws Exception {
    IcebergSinkConfig options = options("later_checkpoint");
    WindowedSpending carolV1 = spending("carol", "EUR", TEN, 100, 1);
    WindowedSpending dave = spending("dave", "GBP", TEN, 50, 1);
    WindowedSpending carolV2 = spending("carol", "EUR", TEN, 450, 3);
    WindowedSpending carolNextHour = spending("carol", "EUR", ELEVEN, 10, 1);

    StreamExecutionEnvironment first = env(Duration.ofMillis(500), Duration.ZERO);
    attach(options, source(first, carolV1, dave));
    first.execute("upsert-first");
    Table table = stack.load("upsert_it", "later_checkpoint");
    List<IcebergRestStack.SpendingRow> afterFirst = IcebergRestStack.rows(table);

    StreamExecutionEnvironment second = env(Duration.ofMillis(500), Duration.ZERO);
    attach(options, source(second, carolV2, carolNextHour));
    second.execute("upsert-second");

    assertThat(afterFirst).containsExactlyInAnyOrder(row(carolV1), row(dave));
    assertThat(IcebergRestStack.rows(table))
        .containsExactlyInAnyOrder(row(carolV2), row(dave), row(carolNextHour));
  }
}
