package dev.tally.runtime.topology;

import static dev.tally.domain.fixtures.Transactions.aTransaction;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.anomaly.Anomaly;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.runtime.topology.ReleasedStateTest.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The aggregator with anomalies on restores the anomaly state ({@value AnomalyWatch#STATE}) that a
 * released Tally wrote, and goes on exactly as a run that was never interrupted: same anomalies.
 *
 * <p>The snapshots under {@code src/test/resources/released-state/<release>-anomaly-baselines/}
 * were written by that release's operator from {@link #BEFORE} ({@link #main}): baselines of two
 * currencies over a day, a transaction waiting for its hour, its judge timer and the forget timers,
 * on both state backends. When a release changes this state, add its snapshots beside these.
 */
class ReleasedAnomalyStateTest {

  /** The last release whose anomaly state every later build must restore. */
  static final String RELEASE = "c42e9ce-anomaly-baselines";

  private static final Path SNAPSHOTS = Path.of("src", "test", "resources", "released-state");
  private static final Instant DAY = Instant.parse("2026-11-20T00:00:00Z");
  private static final AnomalyRule RULE = new AnomalyRule(300, 6);

  /** Eight hours of alice's EUR and four of her USD, and a USD spike waiting for hour 12. */
  static final List<Step> BEFORE = before();

  /** Her EUR spike of hour 20, the waiting one judged, then a day of silence. */
  static final List<Step> AFTER =
      List.of(
          Step.of(tx("eur-spike", "EUR", 20, 9_000)),
          Step.of(tx("eur-normal", "EUR", 20, 1_100)),
          Step.watermark(hour(13)),
          Step.watermark(hour(21)),
          Step.of(tx("usd-late-spike", "USD", 21, 5_000)),
          Step.watermark(hour(22)),
          Step.watermark(hour(24 * 9)));

  private static List<Step> before() {
    List<Step> steps = new ArrayList<>();
    for (int h = 0; h < 8; h++) {
      steps.add(Step.of(tx("eur-" + h, "EUR", h, h % 2 == 0 ? 1_000 : 1_200)));
    }
    for (int h = 0; h < 4; h++) {
      steps.add(Step.of(tx("usd-" + h, "USD", h, 500)));
      steps.add(Step.of(tx("usd-b" + h, "USD", h, 520)));
    }
    steps.add(Step.watermark(hour(9)));
    steps.add(Step.of(tx("usd-spike", "USD", 12, 4_000)));
    return steps;
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void theReleasedAnomalyStateRestoresAndGoesOnAsAnUninterruptedRun(String backend)
      throws Exception {
    Path file = SNAPSHOTS.resolve(RELEASE).resolve("aggregator-" + backend + ".snapshot");
    OperatorSubtaskState released = OperatorSnapshotUtil.readStateHandle(file.toString());

    List<String> restored;
    var harness = open(backend, released);
    try {
      ReleasedStateTest.feed(harness, AFTER);
      restored = anomalies(harness);
      // A checkpoint writes what waits on the heap.
      harness.snapshot(2L, 2L);
      try (Stream<String> keys =
          harness
              .getOperator()
              .<String>getKeyedStateBackend()
              .getKeys(AnomalyWatch.STATE, VoidNamespace.INSTANCE)) {
        assertThat(keys).as("a silent week forgets the baselines").isEmpty();
      }
    } finally {
      harness.close();
    }

    assertThat(restored).isEqualTo(uninterruptedTail(backend));
    // What the uninterrupted run decides, spelled out, so that both cannot drift together.
    assertThat(restored)
        .containsExactly(
            "usd-spike USD 4000 n=8 mean=510",
            "eur-spike EUR 9000 n=8 mean=1100",
            "usd-late-spike USD 5000 n=9 mean=897.7778");
  }

  private static List<String> uninterruptedTail(String backend) throws Exception {
    var harness = open(backend, null);
    try {
      ReleasedStateTest.feed(harness, BEFORE);
      int before = anomalies(harness).size();
      ReleasedStateTest.feed(harness, AFTER);
      List<String> all = anomalies(harness);
      return all.subList(before, all.size());
    } finally {
      harness.close();
    }
  }

  /**
   * Writes the snapshots of {@link #BEFORE} for the code on the class path, into {@code
   * src/test/resources/released-state/<name>/}. Run it from runtime-flink's test class path when a
   * release changes the anomaly state.
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: ReleasedAnomalyStateTest <release name>");
    }
    Path dir = SNAPSHOTS.resolve(args[0]);
    Files.createDirectories(dir);
    for (String backend : List.of("hashmap", "rocksdb")) {
      var harness = open(backend, null);
      try {
        ReleasedStateTest.feed(harness, BEFORE);
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
                new SpendingAggregator(ReleasedStateTest.settings(), RULE),
                AggregationSettings.DEFAULT_WRITE_BACK_USERS),
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

  private static List<String> anomalies(
      KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending>
          harness) {
    List<String> found = new ArrayList<>();
    var side = harness.getSideOutput(SpendingAggregator.ANOMALIES);
    if (side != null) {
      side.forEach(r -> found.add(describe(r.getValue())));
    }
    return found;
  }

  private static String describe(Anomaly a) {
    return a.transactionId()
        + " "
        + a.currency()
        + " "
        + a.amountCents()
        + " n="
        + a.baselineCount()
        + " mean="
        + a.baselineMeanCents().stripTrailingZeros().toPlainString();
  }

  private static dev.tally.domain.fixtures.Transactions tx(
      String id, String currency, long hour, long amount) {
    return aTransaction()
        .id(id)
        .user("alice")
        .currency(currency)
        .amount(amount)
        .at(hour(hour).plus(Duration.ofMinutes(1)));
  }

  private static Instant hour(long hour) {
    return DAY.plus(Duration.ofHours(hour));
  }
}
