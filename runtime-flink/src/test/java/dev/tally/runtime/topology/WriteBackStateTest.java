package dev.tally.runtime.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.array.LongPrimitiveArraySerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WriteBackState} on Flink's real keyed state backends, as the aggregator's operator makes
 * it: written values stay on the heap exactly where the backend serializes every update (RocksDB),
 * and what a checkpoint holds is what was written, whatever happens to the kept object after.
 */
class WriteBackStateTest {

  private static final ValueStateDescriptor<long[]> VALUE =
      new ValueStateDescriptor<>("value", LongPrimitiveArraySerializer.INSTANCE);

  private KeyedOneInputStreamOperatorTestHarness<String, String, String> harness;
  private CountingState counting;
  private WriteBackState<long[]> state;

  @AfterEach
  void close() throws Exception {
    harness.close();
  }

  /** Opens a harness on {@code backend}, restored from {@code snapshot} unless it is null. */
  private void open(StateBackend backend, OperatorSubtaskState snapshot, int capacity)
      throws Exception {
    harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new KeyedProcessOperator<>(new Ignore()), in -> in, Types.STRING);
    harness.setStateBackend(backend);
    if (snapshot != null) {
      harness.initializeState(snapshot);
    }
    harness.open();
    KeyedStateBackend<String> keyed = harness.getOperator().getKeyedStateBackend();
    counting =
        new CountingState(
            keyed.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE));
    // As SpendingAggregatorOperator decides it.
    state =
        new WriteBackState<>(counting, capacity, keyed.isSafeToReuseKVState(), v -> v.length == 0);
  }

  private void select(String user) {
    harness.getOperator().setCurrentKey(user);
  }

  private long[] get(String user) throws Exception {
    select(user);
    return state.get(user);
  }

  private void set(String user, long... value) throws Exception {
    select(user);
    state.set(user, value);
  }

  private void writeBack() throws Exception {
    state.writeBack(this::select);
  }

  /** The stored value, read from the backend itself. */
  private long[] stored(String user) throws Exception {
    select(user);
    return counting.delegate.value();
  }

  /**
   * A barrier that comes before the interval predicts it (the last one's delay, the coordinator's
   * timer) still finds at most {@link WriteBackState#PENDING_AT_BARRIER} users pending: the bound
   * reaches it a {@link WriteBackState#LEAD} of the interval ahead. A bound falling until the very
   * barrier left a barrier 8 % early the interval's share of every user written, 1,800 users here.
   */
  @Test
  void aBarrierSomewhatEarlyFindsNoMoreThanTheBoundPending() throws Exception {
    open(new HashMapStateBackend(), null, 100_000);
    int users = 10_000;
    for (int u = 0; u < users; u++) {
      set("a" + u, u);
    }
    writeBack();
    state.markInterval(); // the interval wrote 10,000 users, which paces the next
    for (int u = 0; u < users; u++) {
      set("b" + u, u);
      // The barrier comes at 92 % of the predicted interval: 8 % of it is still to come.
      state.writeBackAhead(1 - 0.92 * (u + 1) / users, this::select);
    }
    assertThat(state.pendingUsers())
        .isLessThanOrEqualTo(WriteBackState.PENDING_AT_BARRIER + WriteBackState.AHEAD_PER_TURN);
  }

  @Test
  void onRocksDbAWrittenValueIsNotReadAgain() throws Exception {
    open(new EmbeddedRocksDBStateBackend(), null, 10);
    assertThat(get("ann")).isNull();
    set("ann", 1);
    writeBack();
    assertThat(stored("ann")).containsExactly(1);

    long[] kept = get("ann");
    kept[0] = 2;
    set("ann", kept);
    writeBack();

    assertThat(get("ann")).containsExactly(2);
    assertThat(stored("ann")).containsExactly(2);
    assertThat(counting.reads).as("reads of the backend: only the first get").isEqualTo(1);
    assertThat(state.keptUsers()).isEqualTo(1);
  }

  @Test
  void onRocksDbAValueReadIsKeptToo() throws Exception {
    open(new EmbeddedRocksDBStateBackend(), null, 10);
    set("ann", 7);
    writeBack();
    OperatorSubtaskState snapshot = harness.snapshot(1, 1);
    harness.close();

    open(new EmbeddedRocksDBStateBackend(), snapshot, 10);
    assertThat(get("ann")).containsExactly(7);
    assertThat(get("ann")).containsExactly(7);
    assertThat(counting.reads).isEqualTo(1);
  }

  @Test
  void aCheckpointHoldsTheWrittenValueNotTheKeptObjectChangedAfter() throws Exception {
    open(new EmbeddedRocksDBStateBackend(), null, 10);
    set("ann", 1);
    writeBack();
    long[] kept = get("ann");
    // Changed in place, as the dedupe memory is between get and set, while a checkpoint is taken.
    kept[0] = 5;
    OperatorSubtaskState snapshot = harness.snapshot(1, 1);
    set("ann", kept);
    writeBack();
    assertThat(stored("ann")).containsExactly(5);
    harness.close();

    open(new EmbeddedRocksDBStateBackend(), snapshot, 10);
    assertThat(get("ann")).containsExactly(1);
  }

  @Test
  void onTheHeapBackendNothingIsKept() throws Exception {
    open(new HashMapStateBackend(), null, 10);
    set("ann", 1);
    writeBack();
    assertThat(get("ann")).containsExactly(1);
    assertThat(get("ann")).containsExactly(1);
    assertThat(counting.reads).isEqualTo(2);
    assertThat(state.keptUsers()).isZero();
  }

  @Test
  void pendingAndKeptUsersStayWithinTheCapacityDroppingTheLeastRecentlyUsed() throws Exception {
    open(new EmbeddedRocksDBStateBackend(), null, 2);
    set("ann", 1);
    set("bob", 2);
    writeBack();
    assertThat(get("ann")).containsExactly(1);
    set("cem", 3);
    // ann was used after bob: bob made room.
    assertThat(state.keptUsers() + state.pendingUsers()).isEqualTo(2);
    int reads = counting.reads;
    assertThat(get("ann")).containsExactly(1);
    assertThat(counting.reads).isEqualTo(reads);
    assertThat(get("bob")).containsExactly(2);
    assertThat(counting.reads).isEqualTo(reads + 1);
    assertThat(state.keptUsers() + state.pendingUsers()).isEqualTo(2);
  }

  @Test
  void aClearedValueIsNotKept() throws Exception {
    open(new EmbeddedRocksDBStateBackend(), null, 10);
    set("ann", 1);
    writeBack();
    set("ann");
    assertThat(get("ann")).isNull();
    writeBack();
    assertThat(stored("ann")).isNull();
    assertThat(state.keptUsers()).isZero();
    assertThat(get("ann")).isNull();
  }

  /** Counts the reads that reach the backend. */
  private static final class CountingState implements ValueState<long[]> {
    final ValueState<long[]> delegate;
    int reads;

    CountingState(ValueState<long[]> delegate) {
      this.delegate = delegate;
    }

    @Override
    public long[] value() throws IOException {
      reads++;
      return delegate.value();
    }

    @Override
    public void update(long[] value) throws IOException {
      delegate.update(value);
    }

    @Override
    public void clear() {
      delegate.clear();
    }
  }

  /** A keyed function that does nothing: the harness is only there for its keyed state. */
  static final class Ignore extends KeyedProcessFunction<String, String, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(String value, Context ctx, Collector<String> out) {}
  }
}
