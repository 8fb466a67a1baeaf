package dev.tally.runtime.topology;

import static dev.tally.domain.fixtures.Transactions.aTransaction;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.window.TumblingWindows;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator as the job runs it, once per write-back bound: 0 writes every change at once, 1
 * writes back before nearly every element, the default writes back only before snapshots and the
 * end of input; on the heap backend, and on RocksDB, where written values also stay on the heap
 * ({@link WriteBackState}). Every test must hold for all: write-back may change speed, never a
 * result.
 */
@ParameterizedClass(name = "write-back users {0} on {1}")
@MethodSource("backends")
class SpendingAggregatorTest {

  @Parameter(0)
  int writeBackUsers;

  @Parameter(1)
  String backend;

  static Stream<Arguments> backends() {
    return Stream.of(
        Arguments.of(0, "hashmap"),
        Arguments.of(1, "hashmap"),
        Arguments.of(AggregationSettings.DEFAULT_WRITE_BACK_USERS, "hashmap"),
        Arguments.of(1, "rocksdb"),
        Arguments.of(AggregationSettings.DEFAULT_WRITE_BACK_USERS, "rocksdb"));
  }

  private StateBackend stateBackend() {
    return backend.equals("rocksdb")
        ? new EmbeddedRocksDBStateBackend()
        : new HashMapStateBackend();
  }

  private static final Instant H10 = Instant.parse("2026-11-29T10:00:00Z");
  private static final long HOUR = 3_600_000L;
  private static final AtomicLong OFFSETS = new AtomicLong();

  private KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending>
      harness;

  private KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending>
      harness(AggregationSettings settings) throws Exception {
    return harness(settings, null);
  }

  /** A harness restored from {@code snapshot}, or a fresh one when it is {@code null}. */
  private KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending>
      harness(AggregationSettings settings, OperatorSubtaskState snapshot) throws Exception {
    return harness(new SpendingAggregator(settings), snapshot);
  }

  /** A harness of an aggregator that also judges anomalies, restored from {@code snapshot}. */
  private KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending>
      anomalyHarness(OperatorSubtaskState snapshot) throws Exception {
    return harness(
        new SpendingAggregator(AggregationSettings.defaults(), new AnomalyRule(400, 20)), snapshot);
  }

  private KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending>
      harness(SpendingAggregator aggregator, OperatorSubtaskState snapshot) throws Exception {
    KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending> h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new SpendingAggregatorOperator(aggregator, writeBackUsers),
            new SpendingTopology.ByUser(),
            Types.STRING);
    h.setStateBackend(stateBackend());
    if (snapshot != null) {
      h.initializeState(snapshot);
    }
    h.open();
    return h;
  }

  /**
   * A harness as the job runs the operator with unaligned checkpoints and interruptible timers
   * ({@code checkpoints.interruptible-timers}), restored from {@code snapshot} unless it is null.
   */
  private KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending>
      interruptibleHarness(OperatorSubtaskState snapshot) throws Exception {
    KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending> h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new SpendingAggregatorOperator(
                new SpendingAggregator(AggregationSettings.defaults()), writeBackUsers),
            new SpendingTopology.ByUser(),
            Types.STRING);
    h.setStateBackend(stateBackend());
    h.getStreamConfig().setCheckpointingEnabled(true);
    h.getStreamConfig().setUnalignedCheckpointsEnabled(true);
    h.getStreamConfig().setUnalignedCheckpointsSplittableTimersEnabled(true);
    if (snapshot != null) {
      h.initializeState(snapshot);
    }
    h.open();
    return h;
  }

  private static AggregationSettings settings(Duration lateness, Duration earlyFiring) {
    return new AggregationSettings(
        TumblingWindows.of(Duration.ofHours(1)), lateness, Duration.ofHours(24), earlyFiring);
  }

  @BeforeEach
  void openHarness() throws Exception {
    harness = harness(AggregationSettings.defaults());
  }

  @AfterEach
  void closeHarness() throws Exception {
    harness.close();
  }

  private static SourcedTransaction sourced(Transaction tx) {
    return new SourcedTransaction(
        tx,
        new SourceRecord(
            "tx",
            0,
            OFFSETS.incrementAndGet(),
            tx.eventTimeMillis(),
            null,
            tx.transactionId().getBytes(StandardCharsets.UTF_8)));
  }

  private void process(Transaction tx) throws Exception {
    harness.processElement(sourced(tx), tx.eventTimeMillis());
  }

  private List<String> rows() {
    return harness.extractOutputValues().stream()
        .map(
            r ->
                r.key().userId()
                    + "/"
                    + r.key().currency()
                    + "@"
                    + r.window().start()
                    + "="
                    + r.aggregate().totalSpentCents()
                    + "#"
                    + r.aggregate().transactionCount())
        .toList();
  }

  /** Per emitted row, whether it said it was the first of its key. */
  private List<Boolean> firsts() {
    return harness.extractOutputValues().stream().map(WindowedSpending::firstForKey).toList();
  }

  private List<RejectedRecord> rejections() {
    var side = harness.getSideOutput(SpendingAggregator.REJECTED);
    return side == null ? List.of() : side.stream().map(StreamRecord::getValue).toList();
  }

  private void watermark(Instant at) throws Exception {
    harness.processWatermark(at.toEpochMilli() - 1);
  }

  @Test
  void sumsPerUserCurrencyAndWindowAndEmitsWhenTheWatermarkPassesTheEnd() throws Exception {
    process(aTransaction().user("alice").currency("EUR").amount(100).at(H10).build());
    process(
        aTransaction()
            .user("alice")
            .currency("EUR")
            .amount(-30)
            .at(H10.plusSeconds(3_599))
            .build());
    process(aTransaction().user("alice").currency("USD").amount(7).at(H10.plusSeconds(10)).build());
    process(aTransaction().user("bob").currency("EUR").amount(5).at(H10.plusSeconds(20)).build());
    // Exactly at the end: the next window.
    process(
        aTransaction()
            .user("alice")
            .currency("EUR")
            .amount(1_000)
            .at(H10.plusSeconds(3_600))
            .build());

    harness.processWatermark(H10.toEpochMilli() + HOUR - 2);
    assertThat(rows()).as("nothing before the watermark passes the end").isEmpty();

    watermark(H10.plusSeconds(3_600));

    assertThat(rows())
        .containsExactlyInAnyOrder(
            "alice/EUR@2026-11-29T10:00:00Z=70#2",
            "alice/USD@2026-11-29T10:00:00Z=7#1",
            "bob/EUR@2026-11-29T10:00:00Z=5#1");
    assertThat(rejections()).isEmpty();
  }

  /**
   * A window end fires one timer per user. With interruptible timers the task turns to its mailbox
   * (where a checkpoint waits) after each, instead of after the last: so a barrier need not wait
   * for every row of the window, and a checkpoint taken in between, restored, emits the rest, every
   * row once.
   */
  @Test
  void aCheckpointBetweenTheTimersOfOneWindowEndLeavesTheRestToEmitOnceAfterARestore()
      throws Exception {
    harness.close();
    harness = interruptibleHarness(null);
    process(aTransaction().user("alice").currency("EUR").amount(100).at(H10).build());
    process(aTransaction().user("bob").currency("EUR").amount(5).at(H10.plusSeconds(1)).build());
    process(aTransaction().user("carol").currency("USD").amount(7).at(H10.plusSeconds(2)).build());
    // A mail waiting in the task's mailbox, as a checkpoint's would.
    harness.getTaskMailbox().put(new Mail(() -> {}, 0, "a checkpoint"));

    watermark(H10.plusSeconds(3_600));
    List<String> beforeCheckpoint = rows();
    assertThat(beforeCheckpoint).as("one timer fired, then the task turned to its mail").hasSize(1);

    OperatorSubtaskState snapshot = harness.snapshot(1, 1);
    harness.close();
    harness = interruptibleHarness(snapshot);
    watermark(H10.plusSeconds(3_600));

    assertThat(Stream.concat(beforeCheckpoint.stream(), rows().stream()))
        .containsExactlyInAnyOrder(
            "alice/EUR@2026-11-29T10:00:00Z=100#1",
            "bob/EUR@2026-11-29T10:00:00Z=5#1",
            "carol/USD@2026-11-29T10:00:00Z=7#1");
    assertThat(rejections()).isEmpty();
  }

  @Test
  void theFinalWatermarkEmitsEveryOpenWindowOnce() throws Exception {
    process(aTransaction().user("alice").currency("EUR").amount(100).at(H10).build());
    process(aTransaction().user("alice").currency("USD").amount(7).at(H10.plusSeconds(10)).build());
    process(
        aTransaction().user("alice").currency("EUR").amount(5).at(H10.plusSeconds(3_600)).build());
    process(
        aTransaction().user("bob").currency("GBP").amount(9).at(H10.plusSeconds(7_300)).build());
    watermark(H10.plusSeconds(3_600));
    assertThat(rows()).hasSize(2);

    // End of input: every remaining timer of every user fires under this one watermark.
    harness.processWatermark(Long.MAX_VALUE);

    assertThat(rows())
        .containsExactlyInAnyOrder(
            "alice/EUR@2026-11-29T10:00:00Z=100#1",
            "alice/USD@2026-11-29T10:00:00Z=7#1",
            "alice/EUR@2026-11-29T11:00:00Z=5#1",
            "bob/GBP@2026-11-29T12:00:00Z=9#1");
    assertThat(rejections()).isEmpty();
  }

  @Test
  void exactDuplicatesAreDroppedAndConflictingOnesRejectedEvenInAnotherCurrency() throws Exception {
    Transaction original =
        aTransaction().id("t1").user("alice").currency("EUR").amount(100).at(H10).build();
    process(original);
    process(original);
    process(aTransaction().id("t1").user("alice").currency("EUR").amount(101).at(H10).build());
    process(aTransaction().id("t1").user("alice").currency("USD").amount(100).at(H10).build());
    process(aTransaction().id("t1").user("bob").currency("EUR").amount(100).at(H10).build());

    watermark(H10.plusSeconds(3_600));

    assertThat(rows())
        .containsExactlyInAnyOrder(
            "alice/EUR@2026-11-29T10:00:00Z=100#1", "bob/EUR@2026-11-29T10:00:00Z=100#1");
    assertThat(rejections())
        .extracting(RejectedRecord::reason)
        .containsExactly(
            RejectionReason.CONFLICTING_DUPLICATE, RejectionReason.CONFLICTING_DUPLICATE);
    assertThat(rejections().get(0).message())
        .contains(
            "transaction_id t1 was already counted for user alice with amount_cents=100",
            "this record has amount_cents=101");
  }

  @Test
  void eventsForAFinalWindowAreRejectedAsLateWithTheirSource() throws Exception {
    process(aTransaction().user("alice").amount(100).at(H10).build());
    watermark(H10.plusSeconds(3_600));
    SourcedTransaction late =
        sourced(aTransaction().user("alice").amount(5).at(H10.plusSeconds(3_599)).build());

    harness.processElement(late, late.transaction().eventTimeMillis());

    assertThat(rejections())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.reason()).isEqualTo(RejectionReason.LATE);
              assertThat(r.source()).isEqualTo(late.source());
              assertThat(r.message())
                  .contains("falls in window [2026-11-29T10:00:00Z, 2026-11-29T11:00:00Z)");
            });
    assertThat(rows()).containsExactly("alice/EUR@2026-11-29T10:00:00Z=100#1");
  }

  @Test
  void lateEventsWithinTheAllowedLatenessUpsertTheRowAndLaterOnesAreLate() throws Exception {
    harness.close();
    harness = harness(settings(Duration.ofMinutes(10), Duration.ZERO));
    process(aTransaction().user("alice").amount(100).at(H10).build());
    watermark(H10.plusSeconds(3_600));
    process(aTransaction().user("alice").amount(5).at(H10.plusSeconds(30)).build());
    watermark(H10.plusSeconds(3_600 + 600));
    process(aTransaction().user("alice").amount(1).at(H10.plusSeconds(31)).build());

    assertThat(rows())
        .containsExactly(
            "alice/EUR@2026-11-29T10:00:00Z=100#1", "alice/EUR@2026-11-29T10:00:00Z=105#2");
    assertThat(firsts()).as("the update replaces the first row").containsExactly(true, false);
    assertThat(rejections())
        .extracting(RejectedRecord::reason)
        .containsExactly(RejectionReason.LATE);
  }

  @Test
  void aWindowEmittedBeforeASnapshotIsNotFirstAfterTheRestore() throws Exception {
    AggregationSettings settings = settings(Duration.ofMinutes(10), Duration.ZERO);
    harness.close();
    harness = harness(settings);
    process(aTransaction().user("alice").amount(100).at(H10).build());
    watermark(H10.plusSeconds(3_600));
    assertThat(firsts()).containsExactly(true);
    OperatorSubtaskState snapshot = harness.snapshot(1L, 1L);
    harness.close();

    harness = harness(settings, snapshot);
    process(aTransaction().user("alice").amount(5).at(H10.plusSeconds(30)).build());

    assertThat(rows()).containsExactly("alice/EUR@2026-11-29T10:00:00Z=105#2");
    assertThat(firsts()).containsExactly(false);
  }

  @Test
  void theEndOfInputClosesEveryOpenWindowEvenWithoutTheFinalWatermark() throws Exception {
    harness.close();
    harness = harness(AggregationSettings.defaults());
    process(aTransaction().user("alice").currency("EUR").amount(100).at(H10).build());
    process(aTransaction().user("alice").currency("USD").amount(7).at(H10.plusSeconds(10)).build());
    process(
        aTransaction().user("bob").currency("GBP").amount(9).at(H10.plusSeconds(7_300)).build());
    watermark(H10.plusSeconds(3_600));
    assertThat(rows()).hasSize(2);

    // As after a failover of a bounded job whose sources had finished: no final watermark.
    harness.endInput();

    assertThat(rows())
        .containsExactlyInAnyOrder(
            "alice/EUR@2026-11-29T10:00:00Z=100#1",
            "alice/USD@2026-11-29T10:00:00Z=7#1",
            "bob/GBP@2026-11-29T12:00:00Z=9#1");
    assertThat(firsts()).containsOnly(true);

    // The final watermark after the end of input finds nothing left to emit.
    harness.processWatermark(Long.MAX_VALUE);
    assertThat(rows()).hasSize(3);
  }

  @Test
  void openWindowsReachTheStateBackendByTheSnapshotAtTheLatest() throws Exception {
    process(aTransaction().user("alice").amount(1).at(H10).build());
    process(aTransaction().user("bob").amount(2).at(H10.plusSeconds(1)).build());

    // Pending users are written before an element once the bound is reached: with a bound of 1,
    // alice was written before bob's element.
    int pending = writeBackUsers == 0 ? 0 : writeBackUsers == 1 ? 1 : 2;
    assertThat(storedUsers()).hasSize(2 - pending);
    harness.snapshot(1L, 1L);
    assertThat(storedUsers()).containsExactlyInAnyOrder("alice", "bob");
  }

  /**
   * With anomalies on, a checkpoint barrier finds few users pending: between checkpoints the
   * changed values are written ahead, paced by the processing time to the next checkpoint, so that
   * the barrier does not write every user changed in the interval while the task thread processes
   * nothing and sends no alert (seconds at 100,000 users; docs/benchmarks.md "Anomaly latency").
   * What a restore then sees is exactly what writing at the barrier gave.
   */
  @Test
  void aCheckpointBarrierFindsFewUsersPendingAndTheStateRestoresAsWritten() throws Exception {
    harness.close();
    harness = anomalyHarness(null);
    int users = 3 * WriteBackState.PENDING_AT_BARRIER;
    harness.setProcessingTime(0);
    harness.snapshot(1L, 0L);
    for (int u = 0; u < users; u++) {
      process(aTransaction().id("a" + u).user("u" + u).amount(1).at(H10).build());
    }
    harness.setProcessingTime(10_000);
    // The second snapshot tells the interval, 10 s, in which these users were written.
    harness.snapshot(2L, 10_000L);
    for (int u = 0; u < 2 * users; u++) {
      harness.setProcessingTime(10_000 + 9_990L * u / (2 * users));
      // Users seen before, changed again, and as many new ones.
      String user = "u" + (u % 2 == 0 ? u / 2 : users + u / 2);
      process(aTransaction().id("b" + u).user(user).amount(2).at(H10.plusSeconds(1)).build());
    }

    // Right before the third barrier, at most the bound of the new users is pending, not all.
    int newPending = 2 * users - storedUsers().size();
    assertThat(newPending)
        .isLessThanOrEqualTo(WriteBackState.PENDING_AT_BARRIER + WriteBackState.AHEAD_PER_TURN);
    assertThat(2 * users - storedDedupeUsers().size())
        .isLessThanOrEqualTo(WriteBackState.PENDING_AT_BARRIER + WriteBackState.AHEAD_PER_TURN);
    OperatorSubtaskState snapshot = harness.snapshot(3L, 19_990L);
    harness.close();

    harness = anomalyHarness(snapshot);
    // A replay of an id counted after the second snapshot is known after the restore.
    process(aTransaction().id("b1").user("u" + users).amount(2).at(H10.plusSeconds(1)).build());
    watermark(H10.plusSeconds(3_600));
    List<String> expected = new ArrayList<>();
    for (int u = 0; u < users; u++) {
      expected.add("u" + u + "/EUR@2026-11-29T10:00:00Z=3#2");
      expected.add("u" + (users + u) + "/EUR@2026-11-29T10:00:00Z=2#1");
    }
    assertThat(rows()).containsExactlyInAnyOrderElementsOf(expected);
  }

  /**
   * Without anomalies nothing is written ahead: a spending row becomes visible with the
   * checkpoint's commit whatever the barrier's write-back takes, and writing ahead cost the
   * spending job 15 to 24 % of its events/s (docs/benchmarks.md "Anomaly latency"). Every user
   * changed in the interval is still pending at the barrier, up to the write-back bound.
   */
  @Test
  void withoutAnomaliesTheChangesWaitForTheBarrier() throws Exception {
    int users = 3 * WriteBackState.PENDING_AT_BARRIER;
    harness.setProcessingTime(0);
    harness.snapshot(1L, 0L);
    harness.setProcessingTime(10_000);
    harness.snapshot(2L, 10_000L);
    for (int u = 0; u < users; u++) {
      harness.setProcessingTime(10_000 + 9_990L * u / users);
      process(aTransaction().id("a" + u).user("u" + u).amount(1).at(H10).build());
    }

    int pending = users - storedUsers().size();
    if (writeBackUsers == AggregationSettings.DEFAULT_WRITE_BACK_USERS) {
      assertThat(pending).isEqualTo(users);
    } else {
      assertThat(pending).isLessThanOrEqualTo(writeBackUsers);
    }
    harness.snapshot(3L, 19_990L);
    assertThat(storedUsers()).hasSize(users);
  }

  /**
   * The dedupe memory costs RocksDB per user per checkpoint, not per event: between snapshots a
   * user's counted ids stay on the heap with its open windows, and reach the backend as one value
   * by the snapshot (issue 18). Looked up under the per-user hours and the states of releases
   * before them (one packed value per user, one map entry per id), so the test reads the same
   * against any.
   */
  @Test
  void theDedupeMemoryReachesTheStateBackendByTheSnapshotAtTheLatest() throws Exception {
    for (int i = 0; i < 3; i++) {
      process(aTransaction().id("t" + i).user("alice").amount(i).at(H10.plusSeconds(i)).build());
    }
    // A replay before the snapshot is still known.
    process(aTransaction().id("t1").user("alice").amount(1).at(H10.plusSeconds(1)).build());

    // With a bound of 1, alice was written before the next element, as the open windows are.
    assertThat(storedDedupeUsers())
        .hasSize(writeBackUsers == AggregationSettings.DEFAULT_WRITE_BACK_USERS ? 0 : 1);
    OperatorSubtaskState snapshot = harness.snapshot(1L, 1L);
    assertThat(storedDedupeUsers()).containsExactly("alice");
    harness.close();

    harness = harness(AggregationSettings.defaults(), snapshot);
    process(aTransaction().id("t2").user("alice").amount(2).at(H10.plusSeconds(2)).build());
    process(aTransaction().id("t2").user("alice").amount(9).at(H10.plusSeconds(2)).build());
    watermark(H10.plusSeconds(3_600));
    assertThat(rows()).containsExactly("alice/EUR@2026-11-29T10:00:00Z=3#3");
    assertThat(rejections())
        .extracting(RejectedRecord::reason)
        .containsExactly(RejectionReason.CONFLICTING_DUPLICATE);
  }

  private List<String> storedDedupeUsers() {
    var backend = harness.getOperator().<String>getKeyedStateBackend();
    try (var byHour = backend.getKeys("seen-ids-by-user-hour", VoidNamespace.INSTANCE);
        var perUser = backend.getKeys("seen-ids-by-user", VoidNamespace.INSTANCE);
        var perId = backend.getKeys("seen-transactions", VoidNamespace.INSTANCE)) {
      return Stream.concat(byHour, Stream.concat(perUser, perId)).distinct().toList();
    }
  }

  @Test
  void fullIdsDedupeAsFingerprintsDoAndRestoreEitherWay() throws Exception {
    harness.close();
    AggregationSettings fingerprints = AggregationSettings.defaults();
    AggregationSettings fullIds =
        new AggregationSettings(
            fingerprints.windows(),
            fingerprints.allowedLateness(),
            fingerprints.dedupeRetention(),
            fingerprints.earlyFiringInterval(),
            writeBackUsers,
            true);
    harness = harness(fullIds);
    process(aTransaction().id("a").user("alice").amount(1).at(H10).build());
    process(aTransaction().id("a").user("alice").amount(1).at(H10).build());
    OperatorSubtaskState snapshot = harness.snapshot(1L, 1L);
    harness.close();

    // Switched off at a restore: ids kept in full are still read, new ones keep fingerprints.
    harness = harness(fingerprints, snapshot);
    process(aTransaction().id("a").user("alice").amount(2).at(H10).build());
    process(aTransaction().id("b").user("alice").amount(2).at(H10.plusSeconds(1)).build());
    assertThat(rejections())
        .extracting(RejectedRecord::reason)
        .containsExactly(RejectionReason.CONFLICTING_DUPLICATE);
    snapshot = harness.snapshot(2L, 2L);
    harness.close();

    harness = harness(fullIds, snapshot);
    process(aTransaction().id("b").user("alice").amount(2).at(H10.plusSeconds(1)).build());
    process(aTransaction().id("c").user("alice").amount(4).at(H10.plusSeconds(2)).build());
    watermark(H10.plusSeconds(3_600));
    // a (1), b (2) and c (4): the replays of a and b were known across both switches.
    assertThat(rows()).containsExactly("alice/EUR@2026-11-29T10:00:00Z=7#3");
    assertThat(rejections()).isEmpty();
  }

  @Test
  void pendingUsersStayWithinTheBoundWhileAWindowEndFiresEveryUsersTimers() throws Exception {
    for (int user = 0; user < 5; user++) {
      process(aTransaction().user("user-" + user).amount(user).at(H10.plusSeconds(user)).build());
    }
    watermark(H10.plusSeconds(3_600));

    assertThat(rows()).hasSize(5);
    SpendingAggregator aggregator =
        (SpendingAggregator) ((SpendingAggregatorOperator) harness.getOperator()).getUserFunction();
    assertThat(aggregator.pendingUsers()).isLessThanOrEqualTo(writeBackUsers);
  }

  private List<String> storedUsers() {
    try (var keys =
        harness
            .getOperator()
            .<String>getKeyedStateBackend()
            .getKeys(SpendingAggregator.OPEN_WINDOWS_STATE, VoidNamespace.INSTANCE)) {
      return keys.toList();
    }
  }

  @Test
  void windowsOfOneUserAndStartShareTheirTimers() throws Exception {
    process(aTransaction().user("alice").currency("EUR").amount(1).at(H10).build());
    process(aTransaction().user("alice").currency("USD").amount(2).at(H10.plusSeconds(1)).build());
    process(aTransaction().user("alice").currency("GBP").amount(3).at(H10.plusSeconds(2)).build());

    assertThat(harness.numEventTimeTimers()).as("window end and dedupe cleanup").isEqualTo(2);
    watermark(H10.plusSeconds(3_600));
    assertThat(rows()).hasSize(3);
    assertThat(firsts()).containsOnly(true);
    watermark(H10.plus(Duration.ofHours(27)));
    assertThat(harness.numEventTimeTimers()).isZero();
  }

  @Test
  void aWindowWhoseFirstEventIsLateWithinTheLatenessIsEmittedAndStillCleanedUp() throws Exception {
    harness.close();
    harness = harness(settings(Duration.ofMinutes(10), Duration.ZERO));
    watermark(H10.plusSeconds(3_600 + 60));
    process(aTransaction().user("alice").amount(42).at(H10.plusSeconds(30)).build());
    int timersWhileOpen = harness.numEventTimeTimers();

    watermark(H10.plusSeconds(3_600 + 600));
    watermark(H10.plus(Duration.ofHours(27)));

    assertThat(rows()).containsExactly("alice/EUR@2026-11-29T10:00:00Z=42#1");
    assertThat(timersWhileOpen).as("window cleanup and dedupe cleanup").isEqualTo(2);
    assertThat(harness.numEventTimeTimers()).isZero();
    process(aTransaction().user("alice").amount(1).at(H10.plusSeconds(31)).build());
    assertThat(rejections())
        .extracting(RejectedRecord::reason)
        .containsExactly(RejectionReason.LATE);
  }

  @Test
  void aTotalThatWouldOverflowRejectsTheRecordAndKeepsThePreviousTotal() throws Exception {
    process(aTransaction().user("alice").amount(Long.MAX_VALUE - 1).at(H10).build());
    process(aTransaction().user("alice").amount(2).at(H10.plusSeconds(1)).build());
    process(aTransaction().user("alice").amount(1).at(H10.plusSeconds(2)).build());
    watermark(H10.plusSeconds(3_600));

    assertThat(rows()).containsExactly("alice/EUR@2026-11-29T10:00:00Z=" + Long.MAX_VALUE + "#2");
    assertThat(rejections())
        .singleElement()
        .extracting(RejectedRecord::reason)
        .isEqualTo(RejectionReason.AMOUNT_OVERFLOW);
  }

  @Test
  void earlyFiringEmitsChangedOpenWindowsEveryIntervalAndTheFinalRowOnlyIfItChanged()
      throws Exception {
    harness.close();
    harness = harness(settings(Duration.ZERO, Duration.ofSeconds(10)));
    harness.setProcessingTime(1_000);
    process(aTransaction().user("alice").amount(100).at(H10).build());
    harness.setProcessingTime(10_000);
    harness.setProcessingTime(20_000); // nothing changed: nothing emitted
    process(aTransaction().user("alice").amount(5).at(H10.plusSeconds(1)).build());
    harness.setProcessingTime(30_000);
    watermark(H10.plusSeconds(3_600)); // already emitted as is: no duplicate row

    assertThat(rows())
        .containsExactly(
            "alice/EUR@2026-11-29T10:00:00Z=100#1", "alice/EUR@2026-11-29T10:00:00Z=105#2");
    assertThat(firsts()).containsExactly(true, false);
  }

  @Test
  void dedupeEntriesAreForgottenAfterTheRetentionAndNoTimerIsLeft() throws Exception {
    process(aTransaction().id("t1").user("alice").amount(100).at(H10).build());
    watermark(H10.plus(Duration.ofHours(23)));
    // Within the retention the id is remembered, even though its window is long final.
    process(
        aTransaction()
            .id("t1")
            .user("alice")
            .amount(100)
            .at(H10.plus(Duration.ofHours(23)))
            .build());
    // Ids are kept at least the retention after their window's end, on hour-aligned timers: by 27 h
    // the id is forgotten and the same id is a new transaction again.
    watermark(H10.plus(Duration.ofHours(27)));
    process(
        aTransaction().id("t1").user("alice").amount(7).at(H10.plus(Duration.ofHours(27))).build());
    watermark(H10.plus(Duration.ofHours(60)));

    assertThat(rows())
        .containsExactly(
            "alice/EUR@2026-11-29T10:00:00Z=100#1", "alice/EUR@2026-11-30T13:00:00Z=7#1");
    assertThat(rejections())
        .extracting(RejectedRecord::reason)
        .containsExactly(RejectionReason.CONFLICTING_DUPLICATE);
    assertThat(harness.numEventTimeTimers()).isZero();
  }

  /**
   * A subtask that only saw watermarks since its last element (an idle user range, sparse keys)
   * still checkpoints them: after a restore, an event of a window that was final before the failure
   * is LATE, as in a failure-free run, not counted into a window that reopened.
   */
  @Test
  void aWatermarkSeenWithoutElementsIsPartOfTheRestoredFloor() throws Exception {
    process(aTransaction().id("a").user("alice").amount(100).at(H10).build());
    watermark(H10.plusSeconds(3_600)); // fires alice's window: the last timer before the snapshot
    watermark(H10.plusSeconds(3 * 3_600)); // no element, no timer: 11:00-12:00 is now final too
    OperatorSubtaskState snapshot = harness.snapshot(1L, 1L);
    harness.close();

    harness = harness(AggregationSettings.defaults(), snapshot);
    process(aTransaction().id("b").user("bob").amount(7).at(H10.plusSeconds(5_400)).build());

    assertThat(rejections())
        .extracting(RejectedRecord::reason)
        .containsExactly(RejectionReason.LATE);
    assertThat(rows()).isEmpty();
  }

  @Test
  void aSnapshotMidWindowRestoresToTheSameResult() throws Exception {
    process(aTransaction().id("a").user("alice").amount(100).at(H10).build());
    process(aTransaction().id("b").user("alice").amount(20).at(H10.plusSeconds(5)).build());
    OperatorSubtaskState snapshot = harness.snapshot(1L, 1L);
    harness.close();

    harness = harness(AggregationSettings.defaults(), snapshot);
    process(
        aTransaction()
            .id("b")
            .user("alice")
            .amount(20)
            .at(H10.plusSeconds(5))
            .build()); // replayed duplicate
    process(aTransaction().id("c").user("alice").amount(3).at(H10.plusSeconds(6)).build());
    watermark(H10.plusSeconds(3_600));

    assertThat(rows()).containsExactly("alice/EUR@2026-11-29T10:00:00Z=123#3");
  }

  @Test
  void settingsRefuseARetentionThatCouldCountADuplicateTwice() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                new AggregationSettings(
                    TumblingWindows.of(Duration.ofHours(1)),
                    Duration.ofMinutes(30),
                    Duration.ofMinutes(80),
                    Duration.ZERO))
        .hasMessageContaining(
            "dedupe retention PT1H20M is shorter than window size plus allowed lateness (PT1H30M)");
  }
}
