package dev.tally.runtime.topology;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.flink.api.common.state.ValueState;

/**
 * One value per user, stored in keyed state ({@link Store}: a value state, or the parts of a map
 * state), behind a write-back cache: with a capacity above 0, changed values stay on the heap until
 * {@link #writeBack}, which the operator calls before every snapshot, before iterating keys and
 * once {@link #full}. Every read and write of the value goes through {@link #get} and {@link #set},
 * timers included, so the aggregator behaves as if each change were written at once; checkpoints,
 * savepoints and restores only ever see written state. A busy user then costs one RocksDB read and
 * write per checkpoint interval instead of two per event (the memtable search of that read alone
 * was a tenth of the aggregator thread in perf). The aggregator keeps its open windows, its dedupe
 * memory ({@link SeenTransactions}) and its anomaly baselines ({@link AnomalyWatch}) this way.
 *
 * <p>With {@code keepWritten}, values also stay on the heap once written or read (clean), so a busy
 * user is not read and deserialized again after each snapshot: re-reading after the write-back was
 * a quarter of the job's CPU on RocksDB. Pending and clean users together are at most the capacity;
 * the clean user used longest ago makes room. Only for a backend that serializes on {@code update}
 * and deserializes a fresh value on every read (RocksDB: {@link
 * org.apache.flink.runtime.state.KeyedStateBackend#isSafeToReuseKVState}): there a kept value is
 * the caller's own object, and changing it cannot reach a snapshot. On the heap backend the stored
 * object is the value, which a running asynchronous snapshot may still hold, so nothing is kept
 * there. The cache lives as long as the operator instance: a restore, and with it a rescaling to
 * other key groups, starts with none.
 *
 * <p>A value may be changed in place between {@link #get} and {@link #set}, and every change must
 * be followed by {@link #set} (which marks a clean value pending again): its serializer's {@code
 * copy} must then be deep, which lets the heap backend copy a value a running snapshot still holds.
 *
 * @param <T> the value type
 */
final class WriteBackState<T> {

  /**
   * How many users' values {@link #writeBackAhead} leaves pending for the checkpoint barrier: what
   * the task thread writes there, in which no event is processed, is this many users at most, not
   * every user changed in the interval. At 1,000 the barrier's write-back took 33 to 182 ms of the
   * anomaly-latency bench's aggregator sync phase (about 70 µs a user, its three states), a third
   * of the stall that alerts wait behind (docs/benchmarks.md "Anomalies").
   */
  static final int PENDING_AT_BARRIER = 250;

  /**
   * The part of the interval before the predicted barrier by which {@link #writeBackAhead} has come
   * down to {@value #PENDING_AT_BARRIER}: a barrier comes when the previous one's delay and the
   * checkpoint coordinator's timer let it, up to hundreds of milliseconds before the interval
   * predicts, and a bound still falling then left it the interval's share of every user written
   * (1,000 to 2,079 users pending at the bench's barriers instead of 1,000).
   */
  static final double LEAD = 0.1;

  /**
   * How many users' values {@link #writeBackAhead} writes at most in one turn (one element or
   * timer), so that no turn waits long behind writing.
   */
  static final int AHEAD_PER_TURN = 8;

  /**
   * Where each user's value is stored, for the state backend's current key: a value state, or the
   * parts of a map state that the value tells apart ({@link SeenTransactions}).
   */
  interface Store<T> {

    /** The current key's stored value, {@code null} for none. */
    T read() throws Exception;

    /** Stores the current key's value (an empty one for none). */
    void write(T value) throws Exception;
  }

  private final Store<T> state;
  private final int capacity;
  private final boolean keepWritten;
  private final Predicate<T> isEmpty;

  /**
   * Values changed since they were last written to {@link #state}, by user, in the order they were
   * first changed (a later change keeps a user's place): {@link #writeBackOldest} writes the users
   * pending longest first. An empty value is a pending "nothing left", told apart from "nothing
   * pending".
   */
  private final LinkedHashMap<String, T> unwritten = new LinkedHashMap<>();

  /**
   * Values equal to what {@link #state} holds, by user, least recently used first; never empty
   * ones, and only with {@link #keepWritten}.
   */
  private final LinkedHashMap<String, T> written = new LinkedHashMap<>(16, 0.75f, true);

  /** Users written since the last {@link #markInterval}. */
  private int writtenInInterval;

  /** Users written in the interval that {@link #markInterval} ended last, as it counted them. */
  private int writtenLastInterval;

  /**
   * @param state the value state of the current key
   * @param capacity how many users' values may wait, and be kept; 0 writes every change at once
   * @param keepWritten whether written and read values stay on the heap, for a backend that
   *     serializes on every update (see the class comment)
   * @param isEmpty whether a value holds nothing, and is stored as no value
   */
  WriteBackState(ValueState<T> state, int capacity, boolean keepWritten, Predicate<T> isEmpty) {
    this(valueStore(state, isEmpty), capacity, keepWritten, isEmpty);
  }

  /**
   * @param state where the values are stored
   * @param capacity how many users' values may wait, and be kept; 0 writes every change at once
   * @param keepWritten as for a value state: only where the store's reads give fresh objects
   * @param isEmpty whether a value holds nothing and owes the store nothing: a pending empty value
   *     reads as none, and an empty written one is not kept
   */
  WriteBackState(Store<T> state, int capacity, boolean keepWritten, Predicate<T> isEmpty) {
    this.state = state;
    this.capacity = capacity;
    this.keepWritten = keepWritten && capacity > 0;
    this.isEmpty = isEmpty;
  }

  /** The current user's value, {@code null} for none: pending, else kept, else stored. */
  T get(String user) throws Exception {
    if (capacity > 0) {
      T pending = unwritten.get(user);
      if (pending != null) {
        return isEmpty.test(pending) ? null : pending;
      }
    }
    if (keepWritten) {
      T kept = written.get(user);
      if (kept != null) {
        return kept;
      }
      T stored = state.read();
      if (stored != null) {
        written.put(user, stored);
        trim();
      }
      return stored;
    }
    return state.read();
  }

  /** Sets the current user's value (an empty one for none). */
  void set(String user, T value) throws Exception {
    if (capacity > 0) {
      if (keepWritten) {
        written.remove(user);
      }
      unwritten.put(user, value);
      trim();
    } else {
      write(value);
    }
  }

  /** How many users' values wait for {@link #writeBack}. */
  int pendingUsers() {
    return unwritten.size();
  }

  /** How many users' written values are kept on the heap. */
  int keptUsers() {
    return written.size();
  }

  /** Whether as many users are pending as the capacity allows. */
  boolean full() {
    return capacity > 0 && unwritten.size() >= capacity;
  }

  /**
   * Writes every pending value to the state backend; they stay on the heap with {@code
   * keepWritten}.
   *
   * @param selectKey makes a user the backend's current key; the caller restores its own after
   */
  void writeBack(Consumer<String> selectKey) throws Exception {
    if (unwritten.isEmpty()) {
      return;
    }
    writtenInInterval += unwritten.size();
    for (Map.Entry<String, T> pending : unwritten.entrySet()) {
      selectKey.accept(pending.getKey());
      T value = pending.getValue();
      write(value);
      if (keepWritten && !isEmpty.test(value)) {
        written.put(pending.getKey(), value);
      }
    }
    unwritten.clear();
  }

  /**
   * Writes the values of at most {@code users} users, those pending longest, to the state backend;
   * they stay on the heap with {@code keepWritten}. Lets the operator spread the writing over the
   * checkpoint interval, so that {@link #writeBack} at the barrier finds few users pending.
   *
   * @param selectKey makes a user the backend's current key; the caller restores its own after
   */
  void writeBackOldest(int users, Consumer<String> selectKey) throws Exception {
    Iterator<Map.Entry<String, T>> oldest = unwritten.entrySet().iterator();
    for (int i = 0; i < users && oldest.hasNext(); i++) {
      writtenInInterval++;
      Map.Entry<String, T> pending = oldest.next();
      selectKey.accept(pending.getKey());
      T value = pending.getValue();
      write(value);
      oldest.remove();
      if (keepWritten && !isEmpty.test(value)) {
        written.put(pending.getKey(), value);
      }
    }
  }

  /**
   * Writes ahead of the next checkpoint barrier, the users pending longest first, at most {@value
   * #AHEAD_PER_TURN} users: as many as keep the pending users within a bound that falls linearly
   * over the interval, from {@value #PENDING_AT_BARRIER} plus as many users as the last interval
   * wrote, at its start, to {@value #PENDING_AT_BARRIER} a {@link #LEAD} of the interval before the
   * barrier, and stays there. So the writing is spread over the interval, a user changed again soon
   * after its first change is still written once, and a barrier somewhat early finds no more.
   *
   * @param remaining the part of the checkpoint interval still to come, from 1 (just taken) to 0
   *     (due)
   * @param selectKey makes a user the backend's current key; the caller restores its own after
   * @return whether a value was written (and the backend's current key changed)
   */
  boolean writeBackAhead(double remaining, Consumer<String> selectKey) throws Exception {
    int pending = unwritten.size();
    if (pending <= PENDING_AT_BARRIER) {
      return false;
    }
    double toLead = Math.max(0, (remaining - LEAD) / (1 - LEAD));
    long bound = PENDING_AT_BARRIER + (long) (writtenLastInterval * toLead);
    if (pending <= bound) {
      return false;
    }
    writeBackOldest((int) Math.min(AHEAD_PER_TURN, pending - bound), selectKey);
    return true;
  }

  /**
   * Ends a checkpoint interval, right after the {@link #writeBack} of its barrier: what it wrote
   * paces {@link #writeBackAhead} in the next.
   */
  void markInterval() {
    writtenLastInterval = writtenInInterval;
    writtenInInterval = 0;
  }

  private void write(T value) throws Exception {
    state.write(value);
  }

  /** A value state as the store: an empty value is stored as none. */
  private static <T> Store<T> valueStore(ValueState<T> state, Predicate<T> isEmpty) {
    return new Store<>() {
      @Override
      public T read() throws Exception {
        return state.value();
      }

      @Override
      public void write(T value) throws Exception {
        if (isEmpty.test(value)) {
          state.clear();
        } else {
          state.update(value);
        }
      }
    };
  }

  /** Drops the least recently used kept values until pending and kept fit the capacity. */
  private void trim() {
    int over = unwritten.size() + written.size() - capacity;
    for (Iterator<T> it = written.values().iterator(); over > 0 && it.hasNext(); over--) {
      it.next();
      it.remove();
    }
  }
}
