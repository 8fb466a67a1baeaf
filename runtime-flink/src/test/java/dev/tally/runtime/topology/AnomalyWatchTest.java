package dev.tally.runtime.topology;

import static dev.tally.domain.fixtures.Transactions.aTransaction;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.anomaly.Anomaly;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The anomaly rule inside the aggregator, on RocksDB as the job runs it (docs/behaviour.md
 * "Anomalies"): what is judged when, what enters a baseline, and that idle users hold no state.
 */
class AnomalyWatchTest {

  private static final long HOUR = 3_600_000L;
  private static final Instant START = Instant.parse("2026-11-20T00:00:00Z");
  private static final AtomicLong OFFSETS = new AtomicLong();

  private KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending>
      harness;

  private static KeyedOneInputStreamOperatorTestHarness<
          String, SourcedTransaction, WindowedSpending>
      harness(AnomalyRule rule, OperatorSubtaskState restored) throws Exception {
    var h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new SpendingAggregatorOperator(
                new SpendingAggregator(AggregationSettings.defaults(), rule), 1),
            new SpendingTopology.ByUser(),
            Types.STRING);
    h.setStateBackend(new EmbeddedRocksDBStateBackend());
    if (restored != null) {
      h.initializeState(restored);
    }
    h.open();
    return h;
  }

  @AfterEach
  void close() throws Exception {
    if (harness != null) {
      harness.close();
    }
  }

  private void process(Transaction tx) throws Exception {
    harness.processElement(
        new SourcedTransaction(
            tx,
            new SourceRecord(
                "tx",
                0,
                OFFSETS.incrementAndGet(),
                tx.eventTimeMillis(),
                null,
                tx.transactionId().getBytes(StandardCharsets.UTF_8))),
        tx.eventTimeMillis());
  }

  private static Transaction at(String id, long hour, long amount) {
    return aTransaction()
        .id(id)
        .user("alice")
        .amount(amount)
        .at(START.plusMillis(hour * HOUR + 60_000))
        .build();
  }

  /** Twenty transactions of 1000 and 3000 cents, one an hour: mean 2000, σ 1000. */
  private void baseline() throws Exception {
    for (int hour = 0; hour < 20; hour++) {
      process(at("b" + hour, hour, hour % 2 == 0 ? 1_000 : 3_000));
    }
  }

  private List<Anomaly> anomalies() {
    List<Anomaly> found = new ArrayList<>();
    var side = harness.getSideOutput(SpendingAggregator.ANOMALIES);
    if (side != null) {
      side.forEach(r -> found.add(r.getValue()));
    }
    return found;
  }

  private void watermarkAtStartOf(long hour) throws Exception {
    harness.processWatermark(START.toEpochMilli() + hour * HOUR - 1);
  }

  private List<String> keysOf(String state) {
    try (Stream<String> keys =
        harness
            .getOperator()
            .<String>getKeyedStateBackend()
            .getKeys(state, VoidNamespace.INSTANCE)) {
      return keys.toList();
    }
  }

  @Test
  void aSpikeWaitsForTheWatermarkToReachItsHourThenIsReportedOnce() throws Exception {
    harness = harness(new AnomalyRule(400, 20), null);
    baseline();
    process(at("spike", 30, 6_001));
    process(at("normal", 30, 6_000));
    watermarkAtStartOf(29);
    assertThat(anomalies()).as("the baseline of hour 30 is not complete yet").isEmpty();

    watermarkAtStartOf(30);
    assertThat(anomalies())
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.transactionId()).isEqualTo("spike");
              assertThat(a.userId()).isEqualTo("alice");
              assertThat(a.amountCents()).isEqualTo(6_001);
              assertThat(a.baselineCount()).isEqualTo(20);
              assertThat(a.baselineMeanCents()).isEqualByComparingTo("2000");
              assertThat(a.baselineStddevCents()).isEqualByComparingTo("1000");
              assertThat(a.score()).isEqualByComparingTo("4.001");
            });
    watermarkAtStartOf(40);
    assertThat(anomalies()).hasSize(1);
  }

  @Test
  void aTransactionOfAnHourTheWatermarkReachedIsJudgedAtOnce() throws Exception {
    harness = harness(new AnomalyRule(400, 20), null);
    baseline();
    watermarkAtStartOf(30);
    harness.getSideOutput(SpendingAggregator.ANOMALIES);
    process(at("spike", 30, 9_000));
    assertThat(anomalies()).extracting(Anomaly::transactionId).containsExactly("spike");
  }

  @Test
  void exactDuplicatesAndRefundsNeverEnterTheBaseline() throws Exception {
    // 21 needed: with the duplicate or the refund counted, the baseline would have enough.
    harness = harness(new AnomalyRule(400, 21), null);
    baseline();
    process(at("b3", 3, 3_000));
    process(at("refund", 5, -50_000));
    process(at("spike", 30, 1_000_000));
    watermarkAtStartOf(31);
    assertThat(anomalies()).isEmpty();
  }

  @Test
  void aUserSilentForSevenDaysAfterTheDayOfItsLastBucketHoldsNoAnomalyState() throws Exception {
    harness = harness(new AnomalyRule(400, 20), null);
    baseline();
    process(at("waiting", 25, 1_000));
    watermarkAtStartOf(20 + 168);
    assertThat(keysOf(AnomalyWatch.STATE)).containsExactly("alice");

    // Buckets are forgotten by day: the day of hour 25 ends with hour 47.
    watermarkAtStartOf(47 + 170);
    assertThat(keysOf(AnomalyWatch.STATE)).isEmpty();
  }

  @Test
  void aNewHourBucketRegistersNoForgetTimerOfItsOwnOnlyOnePerDay() throws Exception {
    // Each transaction judged at once (the watermark is at its hour), so none waits for a timer.
    long[] hours = {0, 1, 2, 3, 5, 8, 13, 21, 22, 23};
    var without =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new SpendingAggregatorOperator(
                new SpendingAggregator(AggregationSettings.defaults()), 1),
            new SpendingTopology.ByUser(),
            Types.STRING);
    without.setStateBackend(new EmbeddedRocksDBStateBackend());
    without.open();
    harness = harness(new AnomalyRule(400, 20), null);
    try {
      for (long hour : hours) {
        long watermark = START.toEpochMilli() + hour * HOUR - 1;
        without.processWatermark(watermark);
        harness.processWatermark(watermark);
        Transaction tx = at("t" + hour, hour, 1_000);
        SourcedTransaction sourced =
            new SourcedTransaction(
                tx, new SourceRecord("tx", 0, hour, tx.eventTimeMillis(), null, new byte[0]));
        without.processElement(sourced, tx.eventTimeMillis());
        process(tx);
      }
      assertThat(harness.numEventTimeTimers() - without.numEventTimeTimers())
          .as("the anomaly path's timers: one forget timer for the day, none per bucket")
          .isEqualTo(1);
    } finally {
      without.close();
    }
  }

  @Test
  void theEndOfInputJudgesWhatStillWaits() throws Exception {
    harness = harness(new AnomalyRule(400, 20), null);
    baseline();
    process(at("spike", 30, 9_000));
    harness.endInput();
    assertThat(anomalies()).extracting(Anomaly::transactionId).containsExactly("spike");
  }

  @Test
  void aRestoreUnderAnotherRuleFailsNamingItsKeys() throws Exception {
    harness = harness(new AnomalyRule(400, 20), null);
    baseline();
    OperatorSubtaskState snapshot = harness.snapshot(1, 1);
    harness.close();
    harness = null;

    Throwable failure = null;
    try {
      harness(AnomalyRule.of(new BigDecimal("3.5"), 10), snapshot).close();
    } catch (Exception e) {
      failure = e;
    }
    assertThat(failure).isNotNull();
    assertThat(ExceptionUtils.stringifyException(failure))
        .contains(
            "anomalies.k: the restored state was built with 4, the configuration says 3.5",
            "anomalies.min-baseline: the restored state was built with 20, the configuration"
                + " says 10");

    // The same rule restores, and goes on judging with the restored baseline.
    harness = harness(new AnomalyRule(400, 20), snapshot);
    process(at("spike", 30, 9_000));
    watermarkAtStartOf(30);
    assertThat(anomalies()).extracting(Anomaly::transactionId).containsExactly("spike");
  }
}
