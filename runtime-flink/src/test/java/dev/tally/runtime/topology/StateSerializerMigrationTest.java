package dev.tally.runtime.topology;

import static dev.tally.domain.fixtures.Transactions.aTransaction;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.spending.OpenWindow;
import dev.tally.domain.spending.SeenTransaction;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import java.time.Instant;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A savepoint taken while the aggregator's state used Flink's reflective serializers (record and
 * generic array) restores into the aggregator with its dedicated serializers: the state is
 * migrated, not refused. The reflective snapshots name the value classes, so this holds for state
 * written with the value classes under their present names.
 */
class StateSerializerMigrationTest {

  private static final Instant H10 = Instant.parse("2026-11-29T10:00:00Z");
  private static final long HOUR = 3_600_000L;

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void stateWrittenByTheReflectiveSerializersIsMigrated(String backend) throws Exception {
    Transaction a = aTransaction().id("a").user("alice").amount(100).at(H10).build();
    Transaction b = aTransaction().id("b").user("alice").amount(20).at(H10.plusSeconds(5)).build();
    OperatorSubtaskState savepoint;
    var before = harness(new KeyedProcessOperator<>(new LegacyStateWriter()), backend);
    try {
      before.open();
      before.processElement(sourced(a), a.eventTimeMillis());
      before.processElement(sourced(b), b.eventTimeMillis());
      savepoint = before.snapshot(1L, 1L);
    } finally {
      before.close();
    }

    // The job's operator: it also moves the legacy per-id dedupe map into per-user values.
    var after =
        harness(
            new SpendingAggregatorOperator(
                new SpendingAggregator(AggregationSettings.defaults()),
                AggregationSettings.DEFAULT_WRITE_BACK_USERS),
            backend);
    try {
      after.initializeState(savepoint);
      after.open();
      Transaction conflicting =
          aTransaction().id("b").user("alice").amount(21).at(H10.plusSeconds(5)).build();
      Transaction c = aTransaction().id("c").user("alice").amount(3).at(H10.plusSeconds(6)).build();
      after.processElement(sourced(conflicting), conflicting.eventTimeMillis());
      after.processElement(sourced(c), c.eventTimeMillis());
      after.processWatermark(H10.toEpochMilli() + HOUR - 1);

      assertThat(after.extractOutputValues())
          .extracting(w -> w.aggregate().totalSpentCents() + "#" + w.aggregate().transactionCount())
          .containsExactly("123#3");
      List<RejectedRecord> rejected =
          after.getSideOutput(SpendingAggregator.REJECTED).stream()
              .map(StreamRecord::getValue)
              .toList();
      assertThat(rejected)
          .extracting(RejectedRecord::reason)
          .containsExactly(RejectionReason.CONFLICTING_DUPLICATE);
      assertThat(rejected.get(0).message()).contains("amount_cents=20 currency=EUR");
    } finally {
      after.close();
    }
  }

  private static KeyedOneInputStreamOperatorTestHarness<
          String, SourcedTransaction, WindowedSpending>
      harness(
          KeyedProcessOperator<String, SourcedTransaction, WindowedSpending> operator,
          String backend)
          throws Exception {
    var harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            operator, new SpendingTopology.ByUser(), Types.STRING);
    StateBackend state =
        backend.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    harness.setStateBackend(state);
    return harness;
  }

  private static SourcedTransaction sourced(Transaction tx) {
    return new SourcedTransaction(tx, new SourceRecord("tx", 0, 1, -1, null, new byte[] {1}));
  }

  /**
   * Writes the aggregator's state in the format of Flink's reflective serializers: same names, the
   * reflective type information, one window per user, and the timer that fires it.
   */
  private static final class LegacyStateWriter
      extends KeyedProcessFunction<String, SourcedTransaction, WindowedSpending> {

    private static final long serialVersionUID = 1L;

    private transient MapState<String, SeenTransaction> seen;
    private transient ValueState<OpenWindow[]> open;

    @Override
    public void open(OpenContext openContext) {
      seen =
          getRuntimeContext()
              .getMapState(
                  new MapStateDescriptor<>(
                      "seen-transactions",
                      TypeInformation.of(String.class),
                      TypeInformation.of(SeenTransaction.class)));
      open =
          getRuntimeContext()
              .getState(
                  new ValueStateDescriptor<>(
                      "open-windows-by-user", TypeInformation.of(OpenWindow[].class)));
    }

    @Override
    public void processElement(SourcedTransaction in, Context ctx, Collector<WindowedSpending> out)
        throws Exception {
      Transaction tx = in.transaction();
      seen.put(tx.transactionId(), SeenTransaction.of(tx));
      long start = tx.eventTimeMillis() - Math.floorMod(tx.eventTimeMillis(), HOUR);
      OpenWindow[] all = open.value();
      OpenWindow current = all == null ? null : all[0];
      open.update(
          new OpenWindow[] {
            new OpenWindow(
                tx.currency(),
                start,
                (current == null ? 0 : current.totalSpentCents()) + tx.amountCents(),
                (current == null ? 0 : current.transactionCount()) + 1,
                false,
                false)
          });
      ctx.timerService().registerEventTimeTimer(start + HOUR - 1);
    }
  }
}
