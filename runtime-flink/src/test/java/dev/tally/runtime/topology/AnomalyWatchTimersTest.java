package dev.tally.runtime.topology;

import static dev.tally.domain.fixtures.Transactions.aTransaction;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.anomaly.Anomaly;
import dev.tally.domain.anomaly.AnomalyDetector;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.domain.spending.OpenWindow;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.window.TumblingWindows;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which of the aggregator's timers read a user's anomaly baselines: on RocksDB each read is a point
 * lookup and a decode, and every user with an open window has a timer every hour.
 */
class AnomalyWatchTimersTest {

  private static final long HOUR = AnomalyDetector.HOUR_MILLIS;
  private static final Instant START = Instant.parse("2026-11-20T00:00:00Z");

  private KeyedOneInputStreamOperatorTestHarness<String, String, String> harness;
  private CountingState counting;
  private final List<Long> timers = new ArrayList<>();
  private final List<Anomaly> found = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    if (harness != null) {
      harness.close();
    }
  }

  /** A watch on RocksDB that writes every change at once, so every get is a read. */
  private AnomalyWatch watch(AggregationSettings settings) throws Exception {
    harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new KeyedProcessOperator<>(new Ignore()), in -> in, Types.STRING);
    harness.setStateBackend(new EmbeddedRocksDBStateBackend());
    harness.open();
    harness.getOperator().setCurrentKey("alice");
    counting =
        new CountingState(
            harness
                .getOperator()
                .getKeyedStateBackend()
                .getPartitionedState(
                    VoidNamespace.INSTANCE,
                    VoidNamespaceSerializer.INSTANCE,
                    new ValueStateDescriptor<>(AnomalyWatch.STATE, StateTypes.USER_BASELINES)));
    AnomalyWatch watch = new AnomalyWatch(new AnomalyRule(400, 1), settings);
    watch.open(counting, new SimpleCounter(), 0, false);
    return watch;
  }

  private static long at(long hour) {
    return START.toEpochMilli() + hour * HOUR;
  }

  private static Transaction tx(String id, long hour, long amount) {
    return aTransaction()
        .id(id)
        .user("alice")
        .amount(amount)
        .at(Instant.ofEpochMilli(at(hour) + 60_000))
        .build();
  }

  private static OpenWindow[] windowOf(long hour) {
    return new OpenWindow[] {new OpenWindow("EUR", at(hour), 1, 1, false, false)};
  }

  @Test
  void aTimerReadsTheBaselinesOnlyWhenAWaitingTransactionCanBeDue() throws Exception {
    AnomalyWatch watch = watch(AggregationSettings.defaults());
    watch.counted(tx("base", 1, 1_000), at(2), timerService(), found::add);
    watch.counted(tx("spike", 5, 9_000), at(3), timerService(), found::add);
    int reads = counting.reads;

    // The dedupe cleanup of hour 4, and the window timer of a user without a window over hour 5.
    watch.onTimer("alice", at(4), at(4), windowOf(3), found::add);
    watch.onTimer("alice", at(5) - 1, at(5) - 1, windowOf(3), found::add);
    watch.onTimer("alice", at(5) - 1, at(5) - 1, null, found::add);
    assertThat(counting.reads).as("reads of the baselines").isEqualTo(reads);
    assertThat(found).isEmpty();

    // The judge timer of hour 5, where the spike's window is open.
    watch.onTimer("alice", at(5) - 1, at(5) - 1, windowOf(5), found::add);
    assertThat(counting.reads).isEqualTo(reads + 1);
    assertThat(found).extracting(Anomaly::transactionId).containsExactly("spike");
    assertThat(timers).contains(AnomalyDetector.judgeAt(AnomalyDetector.hourOf(at(5))));
  }

  @Test
  void theEndOfInputReadsWhateverTheTimer() throws Exception {
    AnomalyWatch watch = watch(AggregationSettings.defaults());
    watch.counted(tx("base", 1, 1_000), at(2), timerService(), found::add);
    watch.counted(tx("spike", 5, 9_000), at(3), timerService(), found::add);

    watch.onTimer("alice", at(4), Long.MAX_VALUE, null, found::add);

    assertThat(found).extracting(Anomaly::transactionId).containsExactly("spike");
  }

  @ParameterizedTest(name = "windows {0}, lateness {1}")
  @CsvSource({"PT1H,PT0S", "PT1H,PT30M", "PT10S,PT0S", "PT24H,PT2H", "PT168H,PT1H"})
  void aForgetInstantIsToldByItsTimestampExactly(Duration size, Duration lateness)
      throws Exception {
    AnomalyWatch watch =
        watch(
            new AggregationSettings(
                TumblingWindows.of(size), lateness, size.plus(lateness), Duration.ZERO));
    long day0 = Math.floorDiv(at(0), 24 * HOUR);
    List<Long> instants = new ArrayList<>();
    for (long day = day0; day < day0 + 30; day++) {
      instants.add(watch.forgettableAt((day + 1) * 24 - 1));
    }
    for (long instant : instants) {
      assertThat(watch.forgetsAt(instant)).as("forget instant %d", instant).isTrue();
      for (long near : new long[] {instant - HOUR, instant - 1, instant + 1, instant + HOUR}) {
        assertThat(watch.forgetsAt(near)).as("%d", near).isEqualTo(instants.contains(near));
      }
    }
  }

  private TimerService timerService() {
    return new TimerService() {
      @Override
      public long currentProcessingTime() {
        return 0;
      }

      @Override
      public long currentWatermark() {
        return Long.MIN_VALUE;
      }

      @Override
      public void registerProcessingTimeTimer(long time) {}

      @Override
      public void registerEventTimeTimer(long time) {
        timers.add(time);
      }

      @Override
      public void deleteProcessingTimeTimer(long time) {}

      @Override
      public void deleteEventTimeTimer(long time) {}
    };
  }

  /** Counts the reads that reach the backend. */
  private static final class CountingState implements ValueState<UserBaselines> {
    final ValueState<UserBaselines> delegate;
    int reads;

    CountingState(ValueState<UserBaselines> delegate) {
      this.delegate = delegate;
    }

    @Override
    public UserBaselines value() throws IOException {
      reads++;
      return delegate.value();
    }

    @Override
    public void update(UserBaselines value) throws IOException {
      delegate.update(value);
    }

    @Override
    public void clear() {
      delegate.clear();
    }
  }

  private static final class Ignore extends KeyedProcessFunction<String, String, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(String value, Context ctx, Collector<String> out) {}
  }
}
