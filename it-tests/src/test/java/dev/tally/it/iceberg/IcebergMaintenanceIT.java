package dev.tally.it.iceberg;

import static dev.tally.it.iceberg.IcebergRestStack.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Stage;
import dev.tally.adapters.iceberg.IcebergSinkModule;
import dev.tally.adapters.iceberg.IcebergSinkOptions;
import dev.tally.adapters.iceberg.MaintenanceOptions;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.it.iceberg.IcebergRestStack.FileCounts;
import dev.tally.it.iceberg.IcebergRestStack.SpendingRow;
import dev.tally.ports.out.SpendingSink;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Table maintenance inside the sink's job keeps a continuously upserted table small: many
 * checkpoints of upserts over a fixed set of keys, once with maintenance and once without, through
 * a real REST catalog on real S3 storage.
 */
class IcebergMaintenanceIT {

  @RegisterExtension
  static final org.apache.flink.test.junit5.MiniClusterExtension FLINK =
      new org.apache.flink.test.junit5.MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static final int KEYS = 48;
  private static final int UPSERTS = 3_000;
  private static final double UPSERTS_PER_SECOND = 150;
  private static final int BUCKETS = 4;
  private static final int COMPACT_EVERY = 5;

  /**
   * Live data files allowed with maintenance: after a compaction one per partition (one day ×
   * {@value #BUCKETS} buckets); until the next, one more per partition and commit (HASH gives each
   * partition one writer), with slack for a compaction that waits for the rate limit or the lock.
   */
  private static final long MAX_LIVE_FILES = BUCKETS * (2L * COMPACT_EVERY + 4);

  private static IcebergRestStack stack;

  @BeforeAll
  static void startStack() {
    stack = IcebergRestStack.start("IcebergMaintenanceIT");
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  /** Upsert {@code i} rewrites key {@code i % KEYS}; the last upsert of a key wins. */
  static final class Upserts implements GeneratorFunction<Long, WindowedSpending> {
    private static final long serialVersionUID = 1L;
    private static final Instant DAY = Instant.parse("2026-11-29T00:00:00Z");

    @Override
    public WindowedSpending map(Long index) {
      return upsert(index);
    }

    static WindowedSpending upsert(long i) {
      int key = (int) (i % KEYS);
      String user = String.format("user-%02d", key % 12);
      String currency = (key / 12) % 2 == 0 ? "EUR" : "USD";
      Instant window = DAY.plus(Duration.ofHours(8 + key / 24)); // two windows, one day
      return IcebergRestStack.spending(user, currency, window, i * 100 - 7, i / KEYS + 1);
    }
  }

  private static List<SpendingRow> expectedRows() {
    Map<Integer, WindowedSpending> latest = new HashMap<>();
    for (long i = 0; i < UPSERTS; i++) {
      latest.put((int) (i % KEYS), Upserts.upsert(i));
    }
    return latest.values().stream().map(IcebergRestStack::row).toList();
  }

  private record Run(List<FileCounts> samples, FileCounts end, List<SpendingRow> rows) {}

  private static Run run(String tableName, MaintenanceOptions maintenance) throws Exception {
    IcebergSinkOptions options =
        stack
            .sinkOptions("maintenance_it", tableName)
            .userIdBuckets(BUCKETS)
            .writeParallelism(2)
            .maintenance(maintenance)
            .build();
    Configuration conf = new Configuration();
    // Iceberg's maintenance operators exchange their own records with Kryo (see
    // MaintenanceOptions); the same setting for both runs keeps them comparable.
    conf.set(PipelineOptions.GENERIC_TYPES, true);
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    SpendingSink sink =
        Guice.createInjector(Stage.PRODUCTION, new IcebergSinkModule(options))
            .getInstance(SpendingSink.class);
    sink.attach(
        env.fromSource(
                new DataGeneratorSource<>(
                    new Upserts(),
                    UPSERTS,
                    RateLimiterStrategy.perSecond(UPSERTS_PER_SECOND),
                    TypeInformation.of(WindowedSpending.class)),
                WatermarkStrategy.noWatermarks(),
                "upserts")
            .setParallelism(1));
    Table table = stack.load("maintenance_it", tableName);

    JobClient job = env.executeAsync("maintenance-" + tableName);
    List<FileCounts> samples = new ArrayList<>();
    while (!job.getJobExecutionResult().isDone()) {
      samples.add(IcebergRestStack.fileCounts(table));
      try {
        job.getJobExecutionResult().get(500, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException stillRunning) {
        // sample again
      }
    }
    job.getJobExecutionResult().get(); // rethrows a failure
    return new Run(samples, IcebergRestStack.fileCounts(table), IcebergRestStack.rows(table));
  }

  @Test
  void withMaintenanceLiveFilesStayBoundedAndTheContentIsUnchanged() throws Exception {
    Run maintained =
        run(
            "with_maintenance",
            MaintenanceOptions.builder()
                .compactEveryCommits(COMPACT_EVERY)
                .expireEveryCommits(COMPACT_EVERY)
                .retainLastSnapshots(10)
                .maxSnapshotAge(Duration.ofSeconds(1))
                .rateLimit(Duration.ofSeconds(1))
                .lockCheckDelay(Duration.ofSeconds(1))
                .build());
    Run unmaintained = run("without_maintenance", MaintenanceOptions.disabled());

    System.out.printf(
        "IcebergMaintenanceIT: %d upserts of %d keys, %d samples; with maintenance: end %s,"
            + " max data files %d, max delete files %d; without: end %s%n",
        UPSERTS,
        KEYS,
        maintained.samples().size(),
        maintained.end(),
        maintained.samples().stream().mapToLong(FileCounts::dataFiles).max().orElse(0),
        maintained.samples().stream().mapToLong(FileCounts::deleteFiles).max().orElse(0),
        unmaintained.end());
    List<SpendingRow> expected = expectedRows();
    assertThat(maintained.rows()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(unmaintained.rows()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(maintained.samples())
        .as("live data files at every sample of the maintained run")
        .allSatisfy(s -> assertThat(s.dataFiles()).isLessThanOrEqualTo(MAX_LIVE_FILES));
    // Not asserted: live delete files. Iceberg 1.11's Flink compaction rewrites the data files but
    // leaves applied equality and position deletes in the metadata (apache/iceberg#16138); the
    // counts printed above are what this run measured.
    assertThat(maintained.end().snapshots()).isLessThanOrEqualTo(10 + COMPACT_EVERY * 2);
    assertThat(unmaintained.end().dataFiles())
        .as("without maintenance the same input leaves many more files: the bound means something")
        .isGreaterThan(2 * MAX_LIVE_FILES);
    assertThat(row(Upserts.upsert(UPSERTS - 1))).isIn(maintained.rows());
  }
}
