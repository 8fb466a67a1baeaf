package dev.tally.it.eo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.oracle.Input;
import dev.tally.it.oracle.Rejection;
import dev.tally.it.oracle.SpendingDataset;
import dev.tally.it.oracle.SpendingKey;
import dev.tally.it.oracle.SpendingTableReader;
import dev.tally.it.oracle.Totals;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/behaviour.md "Completeness", on the real services: every snapshot Tally commits carries
 * {@code tally.watermark}, and in every snapshot of the table's history the windows that marker
 * (the newest in the snapshot's ancestry, for snapshots that maintenance commits) says are final
 * hold exactly the oracle's final rows, so they never change afterwards; the marker never goes
 * backwards, across a failover in the first job and a stop with a savepoint resumed at another
 * parallelism.
 *
 * <p>The dataset spans several hours and reaches the job in two halves, the second only after the
 * first job has been stopped with a savepoint, so both jobs commit snapshots in which some hours
 * are final and later ones are not.
 */
class CompletenessMarkerIT {

  private static final SpendingDataset.Shape SHAPE =
      new SpendingDataset.Shape(40_000, 100, Duration.ofHours(6), false);

  private static final long HOUR = Duration.ofHours(1).toMillis();

  /** The summary property, named as a batch reader names it (docs/final-hours.md). */
  private static final String MARKER = "tally.watermark";

  @RegisterExtension static final MiniClusterExtension FLINK = ExactlyOnceIT.miniCluster();

  private static Harness harness;

  @BeforeAll
  static void start(@InjectMiniCluster MiniCluster flink) {
    long seed = Seeds.seed();
    System.out.printf(
        "CompletenessMarkerIT seed %d (replay: -D%s=%d)%n", seed, Seeds.PROPERTY, seed);
    harness = Harness.start("completeness-marker-it", flink, seed, SHAPE);
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void everySnapshotHoldsExactlyTheFinalRowsOfTheWindowsItsWatermarkPassed() throws Exception {
    Harness.Run run = harness.runOnItsOwnTopic("marker", SpendingDataset.PARTITIONS);
    List<Input> inputs = harness.data().inputs();
    Map<Rejection, Long> letters = new HashMap<>();
    try {
      run.produce(inputs.subList(0, inputs.size() / 2)).forEach(letters::put);
      Path marker = run.dir.resolve("fault-fired");
      Fault fault = new Fault(Fault.Kind.TASK_EXCEPTION, 4_000, 0, marker.toString());
      JobID first = run.submit(2, null, fault);
      run.awaitCaughtUp(first);
      assertThat(Files.exists(marker)).as("the exception was thrown").isTrue();
      assertThat(run.restarted(first)).as("the first job failed over").isTrue();
      assertThat(run.awaitCheckpoints(first, run.completedCheckpoints(first) + 2)).isTrue();
      String savepoint = run.stopWithSavepoint(first);

      run.produce(inputs.subList(inputs.size() / 2, inputs.size()))
          .forEach((rejection, count) -> letters.merge(rejection, count, Long::sum));
      JobID resumed = run.submit(3, savepoint, null);
      run.finishByDrain(resumed);
      run.expect(harness.data().oracle(), letters, harness.expectedAnomalies());
      assertThat(run.verdict().exact()).as("the run is exact").isTrue();

      checkHistory(run, List.of(first.toHexString(), resumed.toHexString()));
    } finally {
      run.cancelUnfinishedJobs();
    }
  }

  private static void checkHistory(Harness.Run run, List<String> jobs) throws Exception {
    Map<SpendingKey, Totals> oracle = harness.data().oracle();
    try (RESTCatalog catalog = new RESTCatalog()) {
      catalog.initialize("marker-reader", harness.infrastructure().catalogClientProperties());
      Table table = catalog.loadTable(TableIdentifier.of("analytics", run.table));
      List<Snapshot> history = new ArrayList<>();
      for (Snapshot s = table.currentSnapshot(); s != null; ) {
        history.add(s);
        s = s.parentId() == null ? null : table.snapshot(s.parentId());
      }
      Collections.reverse(history);

      long watermark = Long.MIN_VALUE;
      Map<String, Integer> partialByJob = new TreeMap<>();
      for (Snapshot snapshot : history) {
        Map<String, String> summary = snapshot.summary();
        // A commit of Tally's sink: Iceberg's committer records the job and the checkpoint.
        String job =
            summary.containsKey("flink.max-committed-checkpoint-id")
                ? summary.get("flink.job-id")
                : null;
        String value = summary.get(MARKER);
        if (job != null) {
          assertThat(value)
              .as(
                  "snapshot %d, committed by Tally's job %s, carries its watermark",
                  snapshot.snapshotId(), job)
              .isNotNull();
        }
        if (value != null) {
          long marked = Long.parseLong(value);
          assertThat(marked)
              .as("the watermark of snapshot %d never goes backwards", snapshot.snapshotId())
              .isGreaterThanOrEqualTo(watermark);
          watermark = marked;
        }
        // A snapshot without a marker (maintenance) holds what its newest marked ancestor says.
        Map<SpendingKey, Totals> finalRows =
            finalWindows(SpendingTableReader.read(table, snapshot.snapshotId()).rows(), watermark);
        Map<SpendingKey, Totals> expected = finalWindows(oracle, watermark);
        assertThat(finalRows)
            .as(
                "snapshot %d (%s, tally.watermark %d): the windows it shows final",
                snapshot.snapshotId(), snapshot.operation(), watermark)
            .isEqualTo(expected);
        if (job != null && !expected.isEmpty() && expected.size() < oracle.size()) {
          partialByJob.merge(job, 1, Integer::sum);
        }
      }
      assertThat(watermark)
          .as("the drained run ends with every window final")
          .isEqualTo(Long.MAX_VALUE);
      // Not vacuous: both jobs committed snapshots in which some hours were final and some open.
      assertThat(partialByJob.keySet())
          .as("jobs that committed snapshots with final and open hours: %s", partialByJob)
          .containsAll(jobs);
      System.out.printf(
          "[%s] %d snapshots checked; snapshots with final and open hours, by job: %s%n",
          run.name, history.size(), partialByJob);
    }
  }

  /** The rows of the windows that are final by {@code watermark}: end ≤ watermark (no lateness). */
  private static Map<SpendingKey, Totals> finalWindows(
      Map<SpendingKey, Totals> rows, long watermark) {
    Map<SpendingKey, Totals> result = new TreeMap<>();
    rows.forEach(
        (key, totals) -> {
          long end = key.windowStart().toEpochMilli() + HOUR;
          if (end <= watermark) {
            result.put(key, totals);
          }
        });
    return result;
  }
}
