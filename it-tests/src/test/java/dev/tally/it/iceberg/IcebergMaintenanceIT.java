package dev.tally.it.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.inject.Guice;
import com.google.inject.Stage;
import dev.tally.adapters.iceberg.IcebergSinkConfig;
import dev.tally.adapters.iceberg.IcebergSinkModule;
import dev.tally.adapters.iceberg.MaintenanceConfig;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.it.iceberg.IcebergRestStack.FileCounts;
import dev.tally.it.iceberg.IcebergRestStack.SpendingRow;
import dev.tally.ports.out.SpendingSink;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tally's table maintenance inside the job keeps a continuously upserted table small and its
 * content unchanged, and never expires what a restore needs: many checkpoints of upserts over a
 * fixed set of keys, with and without maintenance, and a stop-with-savepoint and resume, through a
 * real REST catalog on real S3 storage. Every job runs as Tally's does, with generic types (Kryo)
 * off.
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
  private static final int UPSERTS = 6_000;
  private static final double UPSERTS_PER_SECOND = 100;
  private static final int BUCKETS = 4;

  /**
   * A commit every 2 s (a fifth of Tally's default interval): about 30 checkpoints in a minute, and
   * rare enough that the test's REST catalog (SQLite behind one Jetty, on a shared machine) is not
   * saturated by the streaming commits alone.
   */
  private static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(2);

  /** The table's partitions: every key's windows fall on one day, spread over the buckets. */
  private static final int PARTITIONS = BUCKETS;

  private static final int COMPACT_EVERY = 3;
  private static final int RETAIN_LAST = 10;

  /**
   * How many look intervals may pass between two compactions: a look is postponed while a run is in
   * flight, and a run takes a few checkpoint intervals on a busy machine.
   */
  private static final int LAG = 3;

  /**
   * Live data files allowed with maintenance: one per partition after a compaction, plus at most
   * one per partition and commit until the next (HASH gives each partition one writer).
   */
  private static final long MAX_LIVE_DATA_FILES = PARTITIONS * (1L + LAG * COMPACT_EVERY);

  /**
   * Live delete files allowed: none after a compaction, plus at most an equality and a position
   * delete per partition and commit until the next.
   */
  private static final long MAX_LIVE_DELETE_FILES = PARTITIONS * 2L * LAG * COMPACT_EVERY;

  private static IcebergRestStack stack;

  @TempDir static Path savepoints;

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

  private static List<SpendingRow> expectedRows(int upserts) {
    Map<Integer, WindowedSpending> latest = new HashMap<>();
    for (long i = 0; i < upserts; i++) {
      latest.put((int) (i % KEYS), Upserts.upsert(i));
    }
    return latest.values().stream().map(IcebergRestStack::row).toList();
  }

  private record Run(List<FileCounts> samples, FileCounts end, List<SpendingRow> rows) {
    long maxDataFiles() {
      return samples.stream().mapToLong(FileCounts::dataFiles).max().orElse(0);
    }

    long maxDeleteFiles() {
      return samples.stream().mapToLong(FileCounts::deleteFiles).max().orElse(0);
    }
  }

  private static IcebergSinkConfig options(String tableName, MaintenanceConfig maintenance) {
    return stack
        .sinkConfig("maintenance_it", tableName)
        .userIdBuckets(BUCKETS)
        .writeParallelism(2)
        .maintenance(maintenance)
        .build();
  }

  /** A job of {@code upserts} upserts into the table, configured as Tally's job is. */
  private static JobClient start(
      IcebergSinkConfig options, int upserts, String savepoint, String jobName) throws Exception {
    Configuration conf = new Configuration();
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    conf.set(PipelineOptions.AUTO_GENERATE_UIDS, false);
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, CHECKPOINT_INTERVAL);
    if (savepoint != null) {
      conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    SpendingSink sink =
        Guice.createInjector(Stage.PRODUCTION, new IcebergSinkModule(options))
            .getInstance(SpendingSink.class);
    sink.attach(
        env.fromSource(
                new DataGeneratorSource<>(
                    new Upserts(),
                    upserts,
                    RateLimiterStrategy.perSecond(UPSERTS_PER_SECOND),
                    TypeInformation.of(WindowedSpending.class)),
                WatermarkStrategy.noWatermarks(),
                "upserts")
            .uid("upserts")
            .setParallelism(1));
    return env.executeAsync(jobName);
  }

  /** Samples the table's live files every half second until the job ends. */
  private static List<FileCounts> sampleUntilDone(JobClient job, Table table) throws Exception {
    List<FileCounts> samples = new ArrayList<>();
    while (!job.getJobExecutionResult().isDone()) {
      samples.add(IcebergRestStack.fileCounts(table));
      try {
        job.getJobExecutionResult().get(500, TimeUnit.MILLISECONDS);
      } catch (TimeoutException stillRunning) {
        // sample again
      }
    }
    job.getJobExecutionResult().get(); // rethrows a failure
    return samples;
  }

  private static Run run(String tableName, MaintenanceConfig maintenance) throws Exception {
    IcebergSinkConfig options = options(tableName, maintenance);
    JobClient job = start(options, UPSERTS, null, "maintenance-" + tableName);
    Table table = stack.load("maintenance_it", tableName);
    List<FileCounts> samples = sampleUntilDone(job, table);
    return new Run(samples, IcebergRestStack.fileCounts(table), IcebergRestStack.rows(table));
  }

  private static MaintenanceConfig.Builder maintenance() {
    return MaintenanceConfig.builder()
        .compactEveryCheckpoints(COMPACT_EVERY)
        .expireEveryCheckpoints(COMPACT_EVERY)
        .retainLastSnapshots(RETAIN_LAST)
        .maxSnapshotAge(Duration.ofSeconds(1));
  }

  @Test
  void withMaintenanceLiveDataAndDeleteFilesStayBoundedAndTheContentIsUnchanged() throws Exception {
    Run maintained = run("with_maintenance", maintenance().build());
    Run unmaintained = run("without_maintenance", MaintenanceConfig.disabled());

    System.out.printf(
        "IcebergMaintenanceIT: %d upserts of %d keys, checkpoint every %d ms, %d samples;"
            + " with maintenance: max live data files %d, max live delete files %d (bounds %d,"
            + " %d), end %s; without: end %s%n",
        UPSERTS,
        KEYS,
        CHECKPOINT_INTERVAL.toMillis(),
        maintained.samples().size(),
        maintained.maxDataFiles(),
        maintained.maxDeleteFiles(),
        MAX_LIVE_DATA_FILES,
        MAX_LIVE_DELETE_FILES,
        maintained.end(),
        unmaintained.end());
    List<SpendingRow> expected = expectedRows(UPSERTS);
    assertThat(maintained.rows()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(unmaintained.rows()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(maintained.samples())
        .as("live data and delete files at every sample of the maintained run")
        .allSatisfy(
            s -> {
              assertThat(s.dataFiles()).isLessThanOrEqualTo(MAX_LIVE_DATA_FILES);
              assertThat(s.deleteFiles()).isLessThanOrEqualTo(MAX_LIVE_DELETE_FILES);
            });
    assertThat(maintained.end().snapshots())
        .as("expiry keeps the history bounded")
        .isLessThanOrEqualTo(RETAIN_LAST + 2 * LAG * COMPACT_EVERY);
    assertThat(unmaintained.end().dataFiles())
        .as(
            "without maintenance the same input leaves many more data files: the bound means"
                + " something")
        .isGreaterThan(2 * MAX_LIVE_DATA_FILES);
    assertThat(unmaintained.end().deleteFiles())
        .as("and many more delete files")
        .isGreaterThan(2 * MAX_LIVE_DELETE_FILES);
  }

  @Test
  void aResumeAfterExpiryFindsItsLastCommitAndNeitherLosesNorRepeatsAnUpsert() throws Exception {
    // Expiry as hard as it goes: after every checkpoint, keep one snapshot of any age. Whether a
    // compaction lands after the job's last commit (the case where only the restore anchor keeps
    // that commit) depends on timing here; SnapshotExpiryTest pins that case down.
    IcebergSinkConfig options =
        options(
            "resumed",
            maintenance()
                .compactEveryCheckpoints(2)
                .expireEveryCheckpoints(1)
                .retainLastSnapshots(1)
                .build());
    // Long enough that the first job is still running when expiry has removed something.
    int upserts = UPSERTS;
    JobClient first = start(options, upserts, null, "maintenance-resumed-1");
    Table table = stack.load("maintenance_it", "resumed"); // created when the sink was attached
    await()
        .atMost(Duration.ofMinutes(2))
        .failFast(
            "the first job ended before expiry ran", () -> first.getJobExecutionResult().isDone())
        .until(() -> expiredSomething(table) && IcebergRestStack.rows(table).size() == KEYS);
    String savepoint =
        first
            .stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
            .get(2, TimeUnit.MINUTES);
    first.getJobExecutionResult().get(2, TimeUnit.MINUTES);
    FileCounts afterFirst = IcebergRestStack.fileCounts(table);
    OptionalLong committed = lastCommittedCheckpoint(table, first.getJobID().toString());

    JobClient second = start(options, upserts, savepoint, "maintenance-resumed-2");
    List<FileCounts> samples = sampleUntilDone(second, table);

    System.out.printf(
        "IcebergMaintenanceIT resume: after the first job %s, its last committed checkpoint"
            + " found %s; after the second %s (%d samples)%n",
        afterFirst, committed, IcebergRestStack.fileCounts(table), samples.size());
    assertThat(committed)
        .as("the committer's walk back from the current snapshot finds the first job's commit")
        .isPresent();
    assertThat(afterFirst.snapshots())
        .as("expiry ran: everything before the restore anchor is gone")
        .isLessThanOrEqualTo(1 + 2 * LAG);
    assertThat(IcebergRestStack.rows(table))
        .containsExactlyInAnyOrderElementsOf(expectedRows(upserts));
  }

  /** True once the table has fewer snapshots than commits, i.e. expiry has removed some. */
  private static boolean expiredSomething(Table table) {
    table.refresh();
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return false;
    }
    int snapshots = IcebergRestStack.fileCounts(table).snapshots();
    return current.sequenceNumber() > snapshots + 1;
  }

  /**
   * What Iceberg's committer does on restore (1.11 {@code SinkUtil.getMaxCommittedCheckpointId}):
   * walk back from the current snapshot to the first one its job committed.
   */
  private static OptionalLong lastCommittedCheckpoint(Table table, String jobId) {
    table.refresh();
    for (Snapshot s = table.currentSnapshot();
        s != null;
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      String checkpoint = s.summary().get("flink.max-committed-checkpoint-id");
      if (jobId.equals(s.summary().get("flink.job-id")) && checkpoint != null) {
        return OptionalLong.of(Long.parseLong(checkpoint));
      }
    }
    return OptionalLong.empty();
  }
}
