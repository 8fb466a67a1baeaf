package dev.tally.it.eo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.oracle.SpendingDataset;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/behaviour.md "Upgrades and restores", on the real services: Tally's job resumed from a
 * savepoint under another window size, or from a drained savepoint, fails at start (FAILED, never
 * RESTARTING) with a message naming why; the same savepoint under its own settings resumes and ends
 * exact.
 */
class RestoreRefusalIT {

  private static final SpendingDataset.Shape SHAPE =
      new SpendingDataset.Shape(20_000, 100, Duration.ofHours(4), false);

  private static final String BOUNDED = "kafka.source.bounded=true";

  @RegisterExtension static final MiniClusterExtension FLINK = ExactlyOnceIT.miniCluster();

  private static Harness harness;

  @BeforeAll
  static void produceTheDataset(@InjectMiniCluster MiniCluster flink) {
    long seed = Seeds.seed();
    System.out.printf("RestoreRefusalIT seed %d (replay: -D%s=%d)%n", seed, Seeds.PROPERTY, seed);
    harness = Harness.start("restore-refusal-it", flink, seed, SHAPE);
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aSavepointUnderOtherSettingsOrADrainedOneFailsAtStartAndItsOwnSettingsResumeExactly()
      throws Exception {
    Harness.Run run = harness.run("refusal");
    try {
      JobID first = run.submit(2, null, null);
      assertThat(run.awaitCheckpoints(first, 2)).as("the first job runs").isTrue();
      String savepoint = run.stopWithSavepoint(first);

      JobID otherWindows = run.submit(2, savepoint, null, "aggregation.window-size=30m");
      assertThat(run.awaitEnded(otherWindows)).isEqualTo(JobStatus.FAILED);
      assertThat(run.restarted(otherWindows)).as("failed at once, not restarted").isFalse();
      assertThat(ExceptionUtils.stringifyException(run.failureCause(otherWindows)))
          .contains(
              "aggregation.window-size: the restored state was built with 1h, the configuration"
                  + " says 30m; restore with the same value or start without state");

      JobID resumed = run.submit(2, savepoint, null);
      String drained = run.finishByDrain(resumed);
      assertThat(run.restoredCheckpoints(resumed)).isEqualTo(1);
      assertThat(run.verdict().exact()).as("the refused restores changed nothing").isTrue();

      JobID afterDrain = run.submit(2, drained, null);
      assertThat(run.awaitEnded(afterDrain)).isEqualTo(JobStatus.FAILED);
      assertThat(run.restarted(afterDrain)).as("failed at once, not restarted").isFalse();
      assertThat(ExceptionUtils.stringifyException(run.failureCause(afterDrain)))
          .contains("the restored state was taken after the end of input");
    } finally {
      run.cancelUnfinishedJobs();
    }
  }

  /**
   * A bounded run stopped with drain mid-way, resumed bounded: records are left to read after its
   * end-of-input watermark, and the first one fails the job at once (FAILED, never RESTARTING),
   * naming why, before anything is counted. The first run is paced so that it is still reading when
   * stopped: a stop that meets a source subtask finishing its input is declined ("task is
   * closing"). The other branch, a bounded run restored after it read everything, which goes on and
   * ends exactly, is the bounded soak's (cancelled or rolled back after the end of input).
   */
  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aBoundedRunResumedAfterADrainMidWayFailsOnTheFirstRecordLeft() throws Exception {
    Harness.Run run = harness.run("bounded-after-end");
    try {
      JobID first = run.submit(2, null, Fault.paced(), BOUNDED);
      assertThat(run.awaitCheckpoints(first, 1)).as("the bounded job runs").isTrue();
      String drained = run.stopWithSavepoint(first, true);

      JobID resumed = run.submit(2, drained, null, BOUNDED);
      assertThat(run.awaitEnded(resumed)).isEqualTo(JobStatus.FAILED);
      assertThat(run.restarted(resumed)).as("failed at once, not restarted").isFalse();
      assertThat(ExceptionUtils.stringifyException(run.failureCause(resumed)))
          .contains(
              "this bounded run read records after it",
              "Nothing was counted",
              "the first record it read after it: ");
    } finally {
      run.cancelUnfinishedJobs();
    }
  }
}
