package dev.tally.runtime.topology;

import static dev.tally.domain.fixtures.Transactions.aTransaction;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.spending.StateSetting;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.window.TumblingWindows;
import dev.tally.runtime.config.AggregationKeys;
import dev.tally.runtime.config.AnomalyKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.executiongraph.failover.ExecutionFailureHandler;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;

/**
 * docs/behaviour.md "Upgrades and restores": state restored under other aggregation settings, or
 * taken after the end of input, fails the operator at start, naming every reason, with an error
 * that Flink does not restart on; the same settings restore as before.
 */
class RestoreGuardTest {

  private static final Instant H10 = Instant.parse("2026-11-29T10:00:00Z");

  private static AggregationSettings settings(
      Duration size, Duration offset, Duration lateness, Duration retention, Duration early) {
    return new AggregationSettings(new TumblingWindows(size, offset), lateness, retention, early);
  }

  private static KeyedOneInputStreamOperatorTestHarness<
          String, SourcedTransaction, WindowedSpending>
      harness(AggregationSettings settings) throws Exception {
    return harness(settings, false);
  }

  private static KeyedOneInputStreamOperatorTestHarness<
          String, SourcedTransaction, WindowedSpending>
      harness(AggregationSettings settings, boolean boundedInput) throws Exception {
    return new KeyedOneInputStreamOperatorTestHarness<>(
        new SpendingAggregatorOperator(new SpendingAggregator(settings, boundedInput), 1),
        new SpendingTopology.ByUser(),
        Types.STRING);
  }

  /** A snapshot mid-window under {@code settings}, after {@code watermark}. */
  private static OperatorSubtaskState snapshotUnder(AggregationSettings settings, long watermark)
      throws Exception {
    var h = harness(settings);
    try {
      h.open();
      Transaction tx = aTransaction().id("a").user("alice").amount(100).at(H10).build();
      h.processElement(sourced(tx, 1), tx.eventTimeMillis());
      h.processWatermark(watermark);
      return h.snapshot(1L, 1L);
    } finally {
      h.close();
    }
  }

  private static SourcedTransaction sourced(Transaction tx, long offset) {
    return new SourcedTransaction(
        tx,
        new SourceRecord(
            "tx",
            0,
            offset,
            tx.eventTimeMillis(),
            null,
            tx.transactionId().getBytes(StandardCharsets.UTF_8)));
  }

  /** Restores {@code snapshot} under {@code settings}; the failure, or null when it restored. */
  private static Throwable restoreUnder(AggregationSettings settings, OperatorSubtaskState snapshot)
      throws Exception {
    var h = harness(settings);
    try {
      h.initializeState(snapshot);
      h.open();
      return null;
    } catch (Exception e) {
      return e;
    } finally {
      h.close();
    }
  }

  @Test
  void stateOfOtherWindowsOrLatenessFailsAtStartNamingEveryChangedKey() throws Exception {
    OperatorSubtaskState hourly =
        snapshotUnder(AggregationSettings.defaults(), H10.toEpochMilli() + 60_000);

    Throwable failure =
        restoreUnder(
            settings(
                Duration.ofMinutes(30),
                Duration.ofMinutes(5),
                Duration.ofMinutes(10),
                Duration.ofHours(24),
                Duration.ZERO),
            hourly);

    assertThat(failure).isNotNull();
    assertThat(ExecutionFailureHandler.isUnrecoverableError(failure))
        .as("Flink fails the job instead of restarting it")
        .isTrue();
    assertThat(ExceptionUtils.findThrowable(failure, SuppressRestartsException.class)).isPresent();
    assertThat(ExceptionUtils.stringifyException(failure))
        .contains(
            "aggregation.window-size: the restored state was built with 1h, the configuration"
                + " says 30m; restore with the same value or start without state",
            "aggregation.window-offset: the restored state was built with 0s, the configuration"
                + " says 5m",
            "aggregation.allowed-lateness: the restored state was built with 0s, the"
                + " configuration says 10m")
        .doesNotContain("aggregation.dedupe-retention");
  }

  @Test
  void stateOfAnotherDedupeRetentionFailsAtStartNamingTheKey() throws Exception {
    OperatorSubtaskState snapshot =
        snapshotUnder(AggregationSettings.defaults(), H10.toEpochMilli());

    Throwable failure =
        restoreUnder(
            settings(
                Duration.ofHours(1),
                Duration.ZERO,
                Duration.ZERO,
                Duration.ofHours(48),
                Duration.ZERO),
            snapshot);

    assertThat(ExecutionFailureHandler.isUnrecoverableError(failure)).isTrue();
    assertThat(ExceptionUtils.stringifyException(failure))
        .contains(
            "aggregation.dedupe-retention: the restored state was built with 1d, the"
                + " configuration says 2d");
  }

  @Test
  void settingsThatChangeNoStateMayChangeAcrossARestore() throws Exception {
    OperatorSubtaskState snapshot =
        snapshotUnder(AggregationSettings.defaults(), H10.toEpochMilli());

    // Early firing and write-back change when rows are emitted and how state is written, not it.
    assertThat(
            restoreUnder(
                new AggregationSettings(
                    TumblingWindows.of(Duration.ofHours(1)),
                    Duration.ZERO,
                    Duration.ofHours(24),
                    Duration.ofMinutes(1),
                    7),
                snapshot))
        .isNull();
  }

  @Test
  void stateTakenAfterTheFinalWatermarkFailsAtStartSayingTheJobHasEnded() throws Exception {
    OperatorSubtaskState drained = snapshotUnder(AggregationSettings.defaults(), Long.MAX_VALUE);

    Throwable failure = restoreUnder(AggregationSettings.defaults(), drained);

    assertThat(ExecutionFailureHandler.isUnrecoverableError(failure)).isTrue();
    assertThat(ExceptionUtils.stringifyException(failure))
        .contains(
            "the restored state was taken after the end of input",
            "every record would be rejected as LATE",
            "Resume from a savepoint taken without --drain");
  }

  @Test
  void aBoundedRunRestoredAfterItsFinalWatermarkEndsExactlyWhenNothingIsLeftToRead()
      throws Exception {
    OperatorSubtaskState ended = snapshotUnder(AggregationSettings.defaults(), Long.MAX_VALUE);

    var h = harness(AggregationSettings.defaults(), true);
    try {
      h.initializeState(ended);
      h.open();
      h.processWatermark(Long.MAX_VALUE); // its sources end again at once
      assertThat(h.extractOutputValues()).as("the windows were emitted before the end").isEmpty();
    } finally {
      h.close();
    }
  }

  @Test
  void aBoundedRunRestoredAfterItsFinalWatermarkFailsOnItsFirstRecordCountingNothing()
      throws Exception {
    OperatorSubtaskState ended = snapshotUnder(AggregationSettings.defaults(), Long.MAX_VALUE);

    var h = harness(AggregationSettings.defaults(), true);
    Throwable failure = null;
    try {
      h.initializeState(ended);
      h.open();
      Transaction tx = aTransaction().id("b").user("bob").amount(7).at(H10).build();
      h.processElement(sourced(tx, 2), tx.eventTimeMillis());
    } catch (Exception e) {
      failure = e;
    } finally {
      assertThat(h.extractOutputValues()).as("nothing counted").isEmpty();
      assertThat(h.getSideOutput(SpendingAggregator.REJECTED)).as("nothing rejected").isNull();
      h.close();
    }

    assertThat(failure).isNotNull();
    assertThat(ExecutionFailureHandler.isUnrecoverableError(failure))
        .as("Flink fails the job instead of restarting it")
        .isTrue();
    assertThat(ExceptionUtils.stringifyException(failure))
        .contains(
            "this bounded run read records after it",
            "Nothing was counted",
            "the first record it read after it: tx partition 0 offset 2");
  }

  @Test
  void aBoundedRunRestoredAfterItsFinalWatermarkUnderOtherSettingsFailsAtStart() throws Exception {
    OperatorSubtaskState ended = snapshotUnder(AggregationSettings.defaults(), Long.MAX_VALUE);

    var h =
        harness(
            settings(
                Duration.ofMinutes(30),
                Duration.ZERO,
                Duration.ZERO,
                Duration.ofHours(24),
                Duration.ZERO),
            true);
    Throwable failure = null;
    try {
      h.initializeState(ended);
    } catch (Exception e) {
      failure = e;
    } finally {
      h.close();
    }

    assertThat(ExecutionFailureHandler.isUnrecoverableError(failure)).isTrue();
    assertThat(ExceptionUtils.stringifyException(failure))
        .contains("aggregation.window-size: the restored state was built with 1h")
        .doesNotContain("after the end of input");
  }

  /**
   * The released state has no record of its settings: it restores under any (nothing says
   * otherwise), and its first snapshot afterwards records the settings it now runs with.
   */
  @Test
  void releasedStateWithoutARecordRestoresAndItsNextSnapshotRecordsTheSettings() throws Exception {
    OperatorSubtaskState released =
        OperatorSnapshotUtil.readStateHandle(
            Path.of("src", "test", "resources", "released-state", ReleasedStateTest.RELEASE)
                .resolve("aggregator-hashmap.snapshot")
                .toString());
    OperatorSubtaskState next;
    var h = harness(ReleasedStateTest.settings());
    try {
      h.initializeState(released);
      h.open();
      next = h.snapshot(2L, 2L);
    } finally {
      h.close();
    }

    Throwable failure =
        restoreUnder(
            settings(
                Duration.ofHours(2),
                Duration.ZERO,
                Duration.ofMinutes(30),
                Duration.ofHours(24),
                Duration.ZERO),
            next);

    assertThat(ExceptionUtils.stringifyException(failure))
        .contains(
            "aggregation.window-size: the restored state was built with 1h, the configuration"
                + " says 2h");
  }

  @Test
  void everySettingARestoreChecksIsNamedByItsDeclaredKey() {
    assertThat(Arrays.stream(StateSetting.values()).map(RestoreGuard::keyOf))
        .containsExactly(
            AggregationKeys.WINDOW_SIZE.name(),
            AggregationKeys.WINDOW_OFFSET.name(),
            AggregationKeys.ALLOWED_LATENESS.name(),
            AggregationKeys.DEDUPE_RETENTION.name(),
            AnomalyKeys.K.name(),
            AnomalyKeys.MIN_BASELINE.name());
  }
}
