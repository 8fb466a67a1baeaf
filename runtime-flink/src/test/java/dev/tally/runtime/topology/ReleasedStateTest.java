package dev.tally.runtime.topology;

import static dev.tally.domain.fixtures.Transactions.aTransaction;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.fixtures.Transactions;
import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.window.TumblingWindows;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The aggregator restores state that a released Tally wrote, and goes on exactly as a run that was
 * never interrupted: same rows, same verdicts.
 *
 * <p>The snapshots under {@code src/test/resources/released-state/<release>/} were written by that
 * release's aggregator operator from {@link #BEFORE} (see {@link #main}); they hold open windows
 * emitted and not, dedupe entries of a user with no open window, event-time timers and the
 * checkpointed watermark floor, on both state backends. A change that renames a state, changes a
 * serializer's format without migration, or drops the floor fails here. When a release changes the
 * state, add its snapshots beside the old ones instead of replacing them.
 */
class ReleasedStateTest {

  /**
   * A release whose state every later build must restore: dedupe entries one map entry per id
   * ({@value SeenTransactions#LEGACY_STATE}), and no record of its settings ({@link RestoreGuard}).
   */
  static final String RELEASE = "b3f3bdb";

  /**
   * The release after it, whose state every later build must restore too: a user's dedupe entries
   * as one packed value ({@code seen-ids-by-user}), written by {@code main} at 99560ee.
   */
  static final String PACKED_DEDUPE_RELEASE = "99560ee-seen-ids";

  private static final Path SNAPSHOTS = Path.of("src", "test", "resources", "released-state");
  private static final Instant H10 = Instant.parse("2026-11-29T10:00:00Z");

  /** Allowed lateness so that the snapshot holds emitted windows that can still change. */
  static AggregationSettings settings() {
    return new AggregationSettings(
        TumblingWindows.of(Duration.ofHours(1)),
        Duration.ofMinutes(30),
        Duration.ofHours(24),
        Duration.ZERO);
  }

  /** Input before the snapshot; the watermark at 10:00 fires the 09:00 windows. */
  static final List<Step> BEFORE =
      List.of(
          Step.of(aTransaction().id("a").user("alice").amount(100).at(H10.minusSeconds(600))),
          Step.of(aTransaction().id("b").user("alice").amount(20).at(H10.plusSeconds(300))),
          Step.of(
              aTransaction().id("g").user("alice").currency("USD").amount(7).at(at("10:10:00"))),
          Step.of(aTransaction().id("x").user("bob").amount(50).at(at("09:59:59"))),
          Step.of(aTransaction().id("y").user("carol").amount(9).at(at("08:10:00"))),
          Step.watermark(at("10:00:00")));

  /** Input after the restore: replays, conflicts, a late update, a late rejection, new windows. */
  static final List<Step> AFTER =
      List.of(
          Step.of(aTransaction().id("b").user("alice").amount(20).at(H10.plusSeconds(300))),
          Step.of(aTransaction().id("a").user("alice").amount(101).at(H10.minusSeconds(600))),
          Step.of(aTransaction().id("z").user("bob").amount(5).at(at("09:30:00"))),
          Step.of(aTransaction().id("y").user("carol").amount(9).at(at("08:10:00"))),
          Step.of(aTransaction().id("w").user("dave").amount(4).at(at("08:30:00"))),
          Step.of(aTransaction().id("c").user("alice").amount(3).at(at("10:20:00"))),
          Step.watermark(at("11:00:00")),
          Step.of(aTransaction().id("d").user("alice").amount(1).at(at("10:59:00"))),
          Step.watermark(at("12:00:00")));

  @ParameterizedTest
  @CsvSource({
    RELEASE + ",hashmap",
    RELEASE + ",rocksdb",
    PACKED_DEDUPE_RELEASE + ",hashmap",
    PACKED_DEDUPE_RELEASE + ",rocksdb"
  })
  void theReleasedStateRestoresAndGoesOnAsAnUninterruptedRun(String release, String backend)
      throws Exception {
    Path file = SNAPSHOTS.resolve(release).resolve("aggregator-" + backend + ".snapshot");
    OperatorSubtaskState released = OperatorSnapshotUtil.readStateHandle(file.toString());

    Outcome restored = run(backend, released, AFTER);
    Outcome uninterrupted = uninterruptedTail(backend);

    assertThat(restored.rows()).isNotEmpty().isEqualTo(uninterrupted.rows());
    assertThat(restored.rejections()).isEqualTo(uninterrupted.rejections());
    // What the uninterrupted run decides, spelled out, so that both cannot drift together.
    assertThat(restored.rows())
        .containsExactly(
            "bob/EUR@2026-11-29T09:00:00Z=55#2 first=false",
            "alice/EUR@2026-11-29T10:00:00Z=23#2 first=true",
            "alice/USD@2026-11-29T10:00:00Z=7#1 first=true",
            "alice/EUR@2026-11-29T10:00:00Z=24#3 first=false");
    assertThat(restored.rejections()).containsExactly("CONFLICTING_DUPLICATE a", "LATE w");
    // Migrated once, before the first record: the old layouts are left empty.
    var harness = open(backend, released);
    try {
      var keyed = harness.getOperator().<String>getKeyedStateBackend();
      assertThat(usersOf(keyed, SeenTransactions.STATE))
          .containsExactlyInAnyOrder("alice", "bob", "carol");
      assertThat(usersOf(keyed, SeenTransactions.PACKED_STATE)).isEmpty();
      assertThat(usersOf(keyed, SeenTransactions.LEGACY_STATE)).isEmpty();
    } finally {
      harness.close();
    }
  }

  private static List<String> usersOf(KeyedStateBackend<String> keyed, String state) {
    try (var keys = keyed.getKeys(state, VoidNamespace.INSTANCE)) {
      return keys.toList();
    }
  }

  /** The rows and verdicts of {@link #AFTER} in a run that took no snapshot in between. */
  private static Outcome uninterruptedTail(String backend) throws Exception {
    var harness = open(backend, null);
    try {
      feed(harness, BEFORE);
      int rows = harness.extractOutputValues().size();
      int rejections = rejections(harness).size();
      feed(harness, AFTER);
      List<String> allRows = rows(harness);
      List<String> allRejections = rejections(harness);
      return new Outcome(
          allRows.subList(rows, allRows.size()),
          allRejections.subList(rejections, allRejections.size()));
    } finally {
      harness.close();
    }
  }

  private static Outcome run(String backend, OperatorSubtaskState state, List<Step> steps)
      throws Exception {
    var harness = open(backend, state);
    try {
      feed(harness, steps);
      return new Outcome(rows(harness), rejections(harness));
    } finally {
      harness.close();
    }
  }

  /**
   * Writes the snapshots of {@link #BEFORE} for the code on the class path, into {@code
   * src/test/resources/released-state/<name>/}. Run it from runtime-flink's test class path when a
   * release changes the aggregator's state.
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: ReleasedStateTest <release name>");
    }
    Path dir = SNAPSHOTS.resolve(args[0]);
    Files.createDirectories(dir);
    for (String backend : List.of("hashmap", "rocksdb")) {
      var harness = open(backend, null);
      try {
        feed(harness, BEFORE);
        OperatorSnapshotUtil.writeStateHandle(
            harness.snapshot(1L, 1L),
            dir.resolve("aggregator-" + backend + ".snapshot").toString());
      } finally {
        harness.close();
      }
    }
  }

  private static KeyedOneInputStreamOperatorTestHarness<
          String, SourcedTransaction, WindowedSpending>
      open(String backend, OperatorSubtaskState state) throws Exception {
    var harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new SpendingAggregatorOperator(
                new SpendingAggregator(settings()), AggregationSettings.DEFAULT_WRITE_BACK_USERS),
            new SpendingTopology.ByUser(),
            Types.STRING);
    StateBackend stateBackend =
        backend.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    harness.setStateBackend(stateBackend);
    if (state != null) {
      harness.initializeState(state);
    }
    harness.open();
    return harness;
  }

  static void feed(
      KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending> harness,
      List<Step> steps)
      throws Exception {
    long offset = 0;
    for (Step step : steps) {
      if (step.tx() == null) {
        harness.processWatermark(step.watermark().toEpochMilli() - 1);
      } else {
        Transaction tx = step.tx();
        SourceRecord source =
            new SourceRecord(
                "tx",
                0,
                ++offset,
                tx.eventTimeMillis(),
                null,
                tx.transactionId().getBytes(StandardCharsets.UTF_8));
        harness.processElement(new SourcedTransaction(tx, source), tx.eventTimeMillis());
      }
    }
  }

  private static List<String> rows(
      KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending>
          harness) {
    List<String> rows = new ArrayList<>();
    for (WindowedSpending r : harness.extractOutputValues()) {
      rows.add(
          r.key().userId()
              + "/"
              + r.key().currency()
              + "@"
              + r.window().start()
              + "="
              + r.aggregate().totalSpentCents()
              + "#"
              + r.aggregate().transactionCount()
              + " first="
              + r.firstForKey());
    }
    return rows;
  }

  private static List<String> rejections(
      KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending>
          harness) {
    var side = harness.getSideOutput(SpendingAggregator.REJECTED);
    if (side == null) {
      return List.of();
    }
    return side.stream().map(StreamRecord::getValue).map(ReleasedStateTest::describe).toList();
  }

  /** The reason and the rejected record's value, which {@link #feed} sets to the id. */
  private static String describe(RejectedRecord rejected) {
    return rejected.reason().name()
        + " "
        + new String(rejected.source().value(), StandardCharsets.UTF_8);
  }

  private static Instant at(String utcTime) {
    return Instant.parse("2026-11-29T" + utcTime + "Z");
  }

  /** One input: a transaction, or a watermark at an instant (exclusive, as a window end). */
  record Step(Transaction tx, Instant watermark) {
    static Step of(Transactions tx) {
      return new Step(tx.build(), null);
    }

    static Step watermark(Instant at) {
      return new Step(null, at);
    }
  }

  private record Outcome(List<String> rows, List<String> rejections) {}
}
