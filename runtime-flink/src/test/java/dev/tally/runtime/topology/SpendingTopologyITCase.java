package dev.tally.runtime.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.window.TumblingWindows;
import dev.tally.ports.in.TransactionStreams;
import dev.tally.ports.types.TallyTypes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topology on a MiniCluster at parallelism 2, RocksDB with incremental checkpoints, fed a
 * bounded seeded scenario; its table and dead letters must equal the oracle computed from the rules
 * of docs/behaviour.md alone — once without failures, once with a task failure after a checkpoint
 * midway and recovery from it.
 */
class SpendingTopologyITCase {

  private static final long SEED = 20261129L;
  private static final int COUNT = 3_000;
  private static final int BAD = 150;
  private static final int RECORDS_PER_CHECKPOINT = 500;
  private static final AggregationSettings SETTINGS =
      new AggregationSettings(
          TumblingWindows.of(Duration.ofHours(1)),
          Duration.ofMinutes(5),
          Duration.ofHours(24),
          Duration.ZERO);

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  /** Failure injection across task restarts in this JVM. */
  static final AtomicBoolean FAILED = new AtomicBoolean();

  static final AtomicBoolean CHECKPOINTED = new AtomicBoolean();

  @TempDir Path checkpoints;

  @BeforeEach
  void reset() {
    FAILED.set(false);
    CHECKPOINTED.set(false);
  }

  @Test
  void aFailureFreeRunEqualsTheOracle() throws Exception {
    Result result = run(false);

    assertMatchesOracle(result);
  }

  @Test
  void aRunRecoveredFromACheckpointMidwayEqualsTheOracle() throws Exception {
    Result result = run(true);

    assertThat(FAILED).as("the injected failure happened after a completed checkpoint").isTrue();
    assertMatchesOracle(result);
  }

  private void assertMatchesOracle(Result result) {
    TopologyScenario.Expected expected = new TopologyScenario(SEED, COUNT, BAD).expected(SETTINGS);
    assertThat(expected.deadLetters().values())
        .as("the scenario exercises every verdict")
        .contains(
            RejectionReason.LATE, RejectionReason.CONFLICTING_DUPLICATE, RejectionReason.MALFORMED);
    assertThat(expected.duplicatesDropped()).isPositive();
    assertThat(expected.table().values().stream().map(TopologyScenario.Row::currency).distinct())
        .hasSize(3);

    assertThat(result.table()).containsExactlyEntriesOf(expected.table());
    assertThat(result.deadLetters()).containsExactlyEntriesOf(expected.deadLetters());
    assertThat(result.deadLetterCount())
        .as("each rejection exactly once")
        .isEqualTo(expected.deadLetters().size());
  }

  private record Result(
      Map<String, TopologyScenario.Row> table,
      Map<Long, RejectionReason> deadLetters,
      int deadLetterCount) {}

  @SuppressWarnings("try") // CloseableIterator.close() declares Exception
  private Result run(boolean injectFailure) throws Exception {
    Configuration config = new Configuration();
    config.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
    config.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
    config.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
    config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(200));
    config.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    config.set(PipelineOptions.GENERIC_TYPES, false);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(2);

    DataStream<SourcedTransaction> accepted =
        env.fromSource(
                new DataGeneratorSource<>(
                    new ScenarioTransactions(),
                    COUNT,
                    // Paced by checkpoints, not by the clock: each checkpoint releases the next
                    // records, so checkpoints complete midway however slow the machine is, and
                    // the failure injected at COUNT / 2 always follows a completed checkpoint.
                    RateLimiterStrategy.perCheckpoint(RECORDS_PER_CHECKPOINT),
                    TallyTypes.SOURCED_TRANSACTION),
                WatermarkStrategy.forGenerator(context -> new EveryEventWatermarks())
                    .withTimestampAssigner((tx, ts) -> tx.transaction().eventTimeMillis()),
                "scenario transactions")
            .setParallelism(1)
            .uid("scenario-transactions")
            .map(new FailOnceAfterACheckpoint(injectFailure ? COUNT / 2 : Long.MAX_VALUE))
            // As the Kafka source declares it: the keyed shuffle (and the in-flight data of
            // unaligned checkpoints) uses the dedicated serializer, as in the job.
            .returns(TallyTypes.SOURCED_TRANSACTION)
            .setParallelism(1)
            .uid("failure-injection");
    DataStream<RejectedRecord> decodeRejections =
        env.fromSource(
                new DataGeneratorSource<>(
                    new ScenarioRejections(), BAD, TypeInformation.of(RejectedRecord.class)),
                WatermarkStrategy.noWatermarks(),
                "scenario rejections")
            .setParallelism(1)
            .uid("scenario-rejections");

    SpendingTopology.Output output =
        SpendingTopology.build(new TransactionStreams(accepted, decodeRejections), SETTINGS);
    DataStream<String> lines =
        output
            .aggregates()
            .map(SpendingTopologyITCase::rowLine)
            .returns(Types.STRING)
            .uid("rows")
            .union(
                output
                    .rejected()
                    .map(r -> "DLQ|" + r.source().offset() + "|" + r.reason())
                    .returns(Types.STRING)
                    .uid("dlq"));

    Map<String, TopologyScenario.Row> table = new TreeMap<>();
    Map<Long, RejectionReason> deadLetters = new TreeMap<>();
    List<String> all = new ArrayList<>();
    try (CloseableIterator<String> it = lines.executeAndCollect("topology-it")) {
      it.forEachRemaining(all::add);
    }
    int deadLetterCount = 0;
    for (String line : all) {
      String[] f = line.split("\\|");
      if (f[0].equals("ROW")) {
        table.put(
            f[1] + "|" + f[2] + "|" + f[3],
            new TopologyScenario.Row(
                f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5])));
      } else {
        deadLetterCount++;
        deadLetters.put(Long.parseLong(f[1]), RejectionReason.valueOf(f[2]));
      }
    }
    return new Result(table, deadLetters, deadLetterCount);
  }

  private static String rowLine(WindowedSpending row) {
    return "ROW|"
        + row.key().userId()
        + "|"
        + row.key().currency()
        + "|"
        + row.window().startMillis()
        + "|"
        + row.aggregate().totalSpentCents()
        + "|"
        + row.aggregate().transactionCount();
  }

  /**
   * Punctuated: a watermark after every event, so which events are late is fixed by the input order
   * alone.
   */
  private static final class EveryEventWatermarks
      implements WatermarkGenerator<SourcedTransaction> {
    private long max = Long.MIN_VALUE;

    @Override
    public void onEvent(SourcedTransaction event, long timestamp, WatermarkOutput output) {
      max = Math.max(max, timestamp);
      output.emitWatermark(new Watermark(max - TopologyScenario.BOUND.toMillis() - 1));
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {}
  }

  private static final class ScenarioTransactions
      implements GeneratorFunction<Long, SourcedTransaction> {
    private static final long serialVersionUID = 1L;
    private transient List<SourcedTransaction> transactions;

    @Override
    public void open(SourceReaderContext readerContext) {
      transactions = new TopologyScenario(SEED, COUNT, BAD).transactions;
    }

    @Override
    public SourcedTransaction map(Long index) {
      return transactions.get(index.intValue());
    }
  }

  private static final class ScenarioRejections implements GeneratorFunction<Long, RejectedRecord> {
    private static final long serialVersionUID = 1L;
    private transient List<RejectedRecord> rejections;

    @Override
    public void open(SourceReaderContext readerContext) {
      rejections = new TopologyScenario(SEED, COUNT, BAD).decodeRejections;
    }

    @Override
    public RejectedRecord map(Long index) {
      return rejections.get(index.intValue());
    }
  }

  /** Throws once, at the first record at or past {@code failAt} after a checkpoint completed. */
  private static final class FailOnceAfterACheckpoint
      implements MapFunction<SourcedTransaction, SourcedTransaction>, CheckpointListener {
    private static final long serialVersionUID = 1L;
    private final long failAt;

    FailOnceAfterACheckpoint(long failAt) {
      this.failAt = failAt;
    }

    @Override
    public SourcedTransaction map(SourcedTransaction value) {
      if (value.source().offset() >= failAt
          && CHECKPOINTED.get()
          && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("injected failure at offset " + value.source().offset());
      }
      return value;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      CHECKPOINTED.set(true);
    }
  }
}
