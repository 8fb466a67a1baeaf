package dev.tally.it.eo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.oracle.SpendingDataset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/behaviour.md "Exactly once", proven: Tally's job, with anomalies on, under each fault
 * scenario ends with exactly the table, the dead letters and the anomalies of the oracle: no record
 * lost, none counted twice, no primary key twice, every rejection once in the dead-letter topic
 * (read_committed), every anomaly once in the anomaly table and once in the anomaly topic
 * (read_committed), with the oracle's values.
 *
 * <p>One seeded dataset (at least 200k events on 8 partitions, over more than 7 days of event time)
 * is produced once; each scenario reads all of it with its own table, dead-letter topic, anomaly
 * table and topic and group. The seed is printed; {@code -Dtally.eo.seed=<seed>} replays the
 * dataset and every scenario's fault points.
 */
class ExactlyOnceIT {

  static final SpendingDataset.Shape SHAPE =
      new SpendingDataset.Shape(200_000, 400, Duration.ofHours(4), false, 40);

  @RegisterExtension static final MiniClusterExtension FLINK = miniCluster();

  private static final List<Scenario.Outcome> OUTCOMES = new ArrayList<>();
  private static long seed;
  private static Harness harness;

  static MiniClusterExtension miniCluster() {
    Configuration configuration = new Configuration();
    // RocksDB takes its memory from the slot's managed memory.
    configuration.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(512));
    // Iceberg's shared worker pool keeps threads a job's task created, with that job's class
    // loader as their context loader; the test's own table reads use them after the job ended.
    // On a MiniCluster every class comes from the test's class path, so the closed loader
    // delegates to it harmlessly: the leak check would only fail those reads.
    configuration.set(CoreOptions.CHECK_LEAKED_CLASSLOADER, false);
    return new MiniClusterExtension(
        new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(configuration)
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(Harness.SLOTS)
            .build());
  }

  @BeforeAll
  static void produceTheDataset(@InjectMiniCluster MiniCluster flink) {
    seed = Seeds.seed();
    System.out.printf("ExactlyOnceIT seed %d (replay: -D%s=%d)%n", seed, Seeds.PROPERTY, seed);
    harness = Harness.start("exactly-once-it", flink, seed, SHAPE);
    SpendingDataset data = harness.data();
    // Guard against a vacuous comparison: volume and every reason data alone decides.
    assertThat(data.inputs()).hasSizeGreaterThan(200_000);
    assertThat(data.rejectedByReason().keySet()).containsAll(SpendingDataset.REASONS_DATA_DECIDES);
    assertThat(data.exactDuplicates()).isPositive();
    // Anomalies decided on full 7-day baselines of the history, and in the dense span.
    long inHistory =
        harness.expectedAnomalies().values().stream()
            .filter(a -> a.eventTime().isBefore(SpendingDataset.BASE))
            .count();
    System.out.printf(
        "Expected anomalies: %d, %d of them in the history%n",
        harness.expectedAnomalies().size(), inHistory);
    assertThat(inHistory).isGreaterThanOrEqualTo(20);
    assertThat(harness.expectedAnomalies().size() - inHistory).isGreaterThanOrEqualTo(20);
  }

  @AfterAll
  static void summarize() {
    System.out.printf("ExactlyOnceIT seed %d:%n", seed);
    OUTCOMES.forEach(o -> System.out.println("  " + o));
    if (harness != null) {
      harness.close();
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void failureFree() throws Exception {
    check(Scenario.FAILURE_FREE);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void anExceptionInATaskMidStream() throws Exception {
    check(Scenario.TASK_EXCEPTION);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aFailureDuringACheckpoint() throws Exception {
    check(Scenario.CHECKPOINT_FAILURE);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aFailedIcebergCommitAfterTheFilesAreWritten() throws Exception {
    check(Scenario.COMMIT_FAILURE);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aKafkaBrokerRestart() throws Exception {
    check(Scenario.BROKER_RESTART);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void cancelledAndResumedFromTheLatestRetainedCheckpoint() throws Exception {
    check(Scenario.CANCEL_AND_RESUME);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void stopWithSavepointAndRescaleTwoToThreeToOne() throws Exception {
    check(Scenario.SAVEPOINT_RESCALE);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aRollbackToAnOlderSavepointFailsAtStart() throws Exception {
    check(Scenario.SAVEPOINT_ROLLBACK);
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aBoundedRunResumedFromASavepointEndsByItself() throws Exception {
    check(Scenario.BOUNDED_RESUME);
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aStreamingJobResumedBoundedEndsByItself() throws Exception {
    check(Scenario.STREAMING_RESUMED_BOUNDED);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aBoundedBackfillFailingOverNearItsEnd() throws Exception {
    check(Scenario.BOUNDED_FAILOVER_AT_END);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void anIdleSubtaskDuringAFailoverWithLateEventsAfterIt() throws Exception {
    check(Scenario.IDLE_SUBTASK_FAILOVER);
  }

  private static void check(Scenario scenario) throws Exception {
    Scenario.Outcome outcome = scenario.run(harness, Seeds.forScenario(seed, scenario));
    OUTCOMES.add(outcome);
    assertThat(outcome.verdict().exact())
        .as("%s (seed %d): %s", scenario, outcome.seed(), outcome.verdict().summary())
        .isTrue();
  }
}
