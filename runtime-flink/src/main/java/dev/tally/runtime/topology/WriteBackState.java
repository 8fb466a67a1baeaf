package dev.tally.runtime.topology;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.flink.api.common.state.ValueState;

/**
 * One keyed value per user behind a write-back cache: with a capacity above 0, changed values stay
 * on the heap until {@link #writeBack}, which the operator calls before every snapshot, before
 * iterating keys and once {@link #full}. Every read and write of the value goes through {@link
 * #get} and {@link #set}, timers included, so the aggregator behaves as if each change were written
 * at once; checkpoints, savepoints and restores only ever see written state. A busy user then costs
 * one RocksDB read and write per checkpoint interval instead of two per event (the memtable search
 * of that read alone was a tenth of the aggregator thread in perf). The aggregator keeps its open
 * windows and its dedupe memory ({@link SeenTransactions}) this way.
 *
 * <p>A value may be changed in place between {@link #get} and {@link #set}: its serializer's {@code
 * copy} must then be deep, which lets the heap backend copy a value a running snapshot still holds.
 *
 * @param <T> the value type
 */
final class WriteBackState<T> {

  private final ValueState<T> state;
  private final int capacity;
  private final Predicate<T> isEmpty;

  /**
   * Values changed since they were last written to {@link #state}, by user; an empty value is a
   * pending "nothing left", told apart from "nothing pending".
   */
  private final Map<String, T> unwritten = new HashMap<>();

  /**
   * @param state the value state of the current key
   * @param capacity how many users' changes may wait; 0 writes every change at once
   * @param isEmpty whether a value holds nothing, and is stored as no value
   */
  WriteBackState(ValueState<T> state, int capacity, Predicate<T> isEmpty) {
    this.state = state;
    this.capacity = capacity;
    this.isEmpty = isEmpty;
  }

  /** The current user's value, {@code null} for none: pending or else stored. */
  T get(String user) throws Exception {
    if (capacity > 0) {
      T pending = unwritten.get(user);
      if (pending != null) {
        return isEmpty.test(pending) ? null : pending;
      }
    }
    return state.value();
  }

  /** Sets the current user's value (an empty one for none). */
  void set(String user, T value) throws Exception {
    if (capacity > 0) {
      unwritten.put(user, value);
    } else {
      write(value);
    }
  }

  /** How many users' values wait for {@link #writeBack}. */
  int pendingUsers() {
    return unwritten.size();
  }

  /** Whether as many users are pending as the capacity allows. */
  boolean full() {
    return capacity > 0 && unwritten.size() >= capacity;
  }

  /**
   * Writes every pending value to the state backend.
   *
   * @param selectKey makes a user the backend's current key; the caller restores its own after
   */
  void writeBack(Consumer<String> selectKey) throws Exception {
    if (unwritten.isEmpty()) {
      return;
    }
    for (Map.Entry<String, T> pending : unwritten.entrySet()) {
      selectKey.accept(pending.getKey());
      write(pending.getValue());
    }
    unwritten.clear();
  }

  private void write(T value) throws Exception {
    if (isEmpty.test(value)) {
      state.clear();
    } else {
      state.update(value);
    }
  }
}
