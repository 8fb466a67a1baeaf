package dev.tally.it.eo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.oracle.Input;
import dev.tally.it.oracle.Rejection;
import dev.tally.it.oracle.SpendingDataset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/behaviour.md "Upgrades and restores", on the real services: Tally's job resumed from a
 * savepoint under another window size, or from a drained savepoint, or from a savepoint older than
 * a span that committed only dead letters, fails at start (FAILED, never RESTARTING) with a message
 * naming why; the same savepoint under its own settings resumes and ends exact.
 */
class RestoreRefusalIT {

  private static final SpendingDataset.Shape SHAPE =
      new SpendingDataset.Shape(20_000, 100, Duration.ofHours(4), false);

  private static final String BOUNDED = "kafka.source.bounded=true";

  private static final String SLOWER_CHECKPOINTS = "checkpoints.interval=2s";

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
   * A rollback across a span that emitted no row, only dead letters: a savepoint, then rejected
   * records only, their dead letters committed, then a cancel. The span's only trace in the table
   * is the empty snapshot each of its checkpoints committed, so restoring the savepoint fails at
   * start naming that commit, and the dead-letter topic holds each dead letter once. Checkpoints
   * every 2 s keep the first job well below Iceberg's default of 10 empty checkpoints between two
   * empty commits, so without Tally's table property the span would leave no snapshot at all.
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aRollbackAcrossASpanOfDeadLettersOnlyFailsAtStartAndSendsNoneAgain() throws Exception {
    Harness.Run run = harness.runOnItsOwnTopic("dead-letters-only", 1);
    try {
      JobID first = run.submit(1, null, null, SLOWER_CHECKPOINTS);
      assertThat(run.awaitCheckpoints(first, 1)).as("the job runs").isTrue();
      String savepoint = run.savepoint(first);
      Map<Rejection, Long> letters = run.produce(rejectedOnly(5));
      run.expect(Map.of(), letters, Map.of());
      assertThat(run.verdict().exact()).as("the span committed its dead letters once").isTrue();
      assertThat(run.awaitCheckpoints(first, run.completedCheckpoints(first) + 1)).isTrue();
      run.cancel(first);

      JobID rollback = run.submit(1, savepoint, null, SLOWER_CHECKPOINTS);
      // A job that passed the sink's start check completes checkpoints; one refused never does.
      Harness.await(
          "the rollback job " + rollback + " ends or checkpoints",
          Harness.JOB_TIMEOUT,
          () -> run.isTerminal(rollback) || run.completedCheckpoints(rollback) >= 2);
      JobStatus ended = run.status(rollback);
      String cause =
          ended == JobStatus.FAILED
              ? ExceptionUtils.stringifyException(run.failureCause(rollback))
              : "";
      run.cancelUnfinishedJobs();
      SoftAssertions softly = new SoftAssertions();
      softly.assertThat(ended).as("the rollback to the savepoint").isEqualTo(JobStatus.FAILED);
      softly.assertThat(run.restarted(rollback)).as("failed at once, not restarted").isFalse();
      // Both the table and the dead-letter topic show the span; either refusal will do.
      softly
          .assertThat(cause)
          .containsAnyOf(
              "the table has a commit made after the restored state was taken (snapshot ",
              "has a dead letter written after the restored state was taken (");
      softly
          .assertThat(run.verdict().exact())
          .as("each dead letter once on the dead-letter topic")
          .isTrue();
      softly.assertAll();
    } finally {
      run.cancelUnfinishedJobs();
    }
  }

  /**
   * The one rollback the table cannot show: the latest checkpoint's dead letters committed and its
   * table commit not made (two tasks, no fixed order; a cancel or a lost TaskManager between them).
   * The table is put back to its snapshot from before the savepoint, which is what it holds after
   * such a stop; the dead-letter topic keeps the span's dead letters. Restoring the savepoint must
   * fail at start, naming a dead letter of the span, and send none again.
   */
  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aRollbackOverDeadLettersWhoseTableCommitIsMissingFailsAtStartAndSendsNoneAgain()
      throws Exception {
    Harness.Run run = harness.runOnItsOwnTopic("dead-letters-no-table-commit", 1);
    try {
      JobID first = run.submit(1, null, null, SLOWER_CHECKPOINTS);
      assertThat(run.awaitCheckpoints(first, 1)).as("the job runs").isTrue();
      Harness.await(
          "the first table commit of " + first,
          Harness.JOB_TIMEOUT,
          () -> run.spendingTable().currentSnapshot() != null);
      // Every commit until the savepoint is of a checkpoint at or below the savepoint's.
      long beforeSavepoint = run.spendingTable().currentSnapshot().snapshotId();
      String savepoint = run.savepoint(first);
      Map<Rejection, Long> letters = run.produce(rejectedOnly(5));
      run.expect(Map.of(), letters, Map.of());
      assertThat(run.verdict().exact()).as("the span committed its dead letters once").isTrue();
      run.cancel(first);
      run.spendingTable().manageSnapshots().rollbackTo(beforeSavepoint).commit();

      JobID rollback = run.submit(1, savepoint, null, SLOWER_CHECKPOINTS);
      Harness.await(
          "the rollback job " + rollback + " ends or checkpoints",
          Harness.JOB_TIMEOUT,
          () -> run.isTerminal(rollback) || run.completedCheckpoints(rollback) >= 2);
      JobStatus ended = run.status(rollback);
      String cause =
          ended == JobStatus.FAILED
              ? ExceptionUtils.stringifyException(run.failureCause(rollback))
              : "";
      run.cancelUnfinishedJobs();
      SoftAssertions softly = new SoftAssertions();
      softly.assertThat(ended).as("the rollback to the savepoint").isEqualTo(JobStatus.FAILED);
      softly.assertThat(run.restarted(rollback)).as("failed at once, not restarted").isFalse();
      softly
          .assertThat(cause)
          .contains(
              "has a dead letter written after the restored state was taken (",
              "; the state is of checkpoint ");
      softly
          .assertThat(run.verdict().exact())
          .as("each dead letter once on the dead-letter topic")
          .isTrue();
      softly.assertAll();
    } finally {
      run.cancelUnfinishedJobs();
    }
  }

  /** {@code count} records the decoder rejects as {@code MALFORMED}, so no row is ever emitted. */
  private static List<Input> rejectedOnly(int count) {
    List<Input> inputs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      inputs.add(
          new Input(
              0,
              ("rejected-" + i).getBytes(StandardCharsets.UTF_8),
              "{not json".getBytes(StandardCharsets.UTF_8),
              System.currentTimeMillis(),
              "MALFORMED"));
    }
    return inputs;
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
