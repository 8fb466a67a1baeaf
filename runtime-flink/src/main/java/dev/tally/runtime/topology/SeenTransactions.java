package dev.tally.runtime.topology;

import dev.tally.domain.spending.SeenIds;
import dev.tally.domain.spending.SeenTransaction;
import dev.tally.domain.transaction.Transaction;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * What the aggregator remembers of the current user's counted transactions, for the dedupe
 * retention of event time: the user's ids packed in one value ({@link SeenIds}, value state {@value
 * #STATE}) behind the same write-back cache as the open windows ({@link WriteBackState}), so a busy
 * user's dedupe costs one RocksDB read and write per checkpoint interval, not a get and a put per
 * event, and a new id is a hash probe on the heap. Forgetting runs on hour-aligned event-time
 * timers, so one timer serves the windows of a whole hour and an id is kept at least the retention
 * after its window's end.
 *
 * <p>State of releases before this one kept a map entry per id ({@value #LEGACY_STATE}); {@link
 * #migrate} moves it into this form once, on restore.
 */
final class SeenTransactions {

  /** Name of the keyed value state holding each user's {@link SeenIds}. */
  static final String STATE = "seen-ids-by-user";

  /** Name of the keyed map state, id to {@link SeenTransaction}, of releases up to b3f3bdb. */
  static final String LEGACY_STATE = "seen-transactions";

  /** The legacy map state, read only to migrate it. */
  static final MapStateDescriptor<String, SeenTransaction> LEGACY =
      new MapStateDescriptor<>(
          LEGACY_STATE, TypeInformation.of(String.class), StateTypes.SEEN_TRANSACTION);

  private static final long CLEANUP_GRANULARITY = 3_600_000L;

  private final WriteBackState<SeenIds> state;
  private final long retention;
  private final boolean fullIds;

  /**
   * @param state the value state of the current user
   * @param capacity how many users' changes may wait on the heap ({@link WriteBackState})
   * @param keepWritten whether written values stay on the heap ({@link WriteBackState})
   * @param fullIds whether new entries keep the full id, not only its fingerprint
   */
  SeenTransactions(
      ValueState<SeenIds> state,
      int capacity,
      boolean keepWritten,
      long retentionMillis,
      boolean fullIds) {
    this.state = new WriteBackState<>(state, capacity, keepWritten, SeenIds::isEmpty);
    this.retention = retentionMillis;
    this.fullIds = fullIds;
  }

  /** The current user's remembered ids, empty for none; pass it back to {@link #remember}. */
  SeenIds of(String user) throws Exception {
    SeenIds ids = state.get(user);
    return ids == null ? SeenIds.empty() : ids;
  }

  /**
   * Remembers a counted transaction of the current user, whose ids {@link #of} gave.
   *
   * @param fingerprint {@link SeenIds#fingerprint} of its id, as the lookup computed it
   */
  void remember(String user, SeenIds ids, Transaction tx, long fingerprint) throws Exception {
    ids.add(tx, fingerprint, fullIds);
    state.set(user, ids);
  }

  /**
   * The first hour-aligned instant after the ids of a window ending at {@code windowEnd} expire, so
   * the windows of one hour share one timer.
   */
  long cleanupTime(long windowEnd) {
    long expiry = windowEnd + retention;
    return expiry - Math.floorMod(expiry, CLEANUP_GRANULARITY) + CLEANUP_GRANULARITY;
  }

  /** Forgets what expired by {@code timestamp}, if it is a time {@link #cleanupTime} gives. */
  void cleanUpAt(String user, long timestamp) throws Exception {
    if (Math.floorMod(timestamp, CLEANUP_GRANULARITY) != 0) {
      return;
    }
    SeenIds ids = state.get(user);
    if (ids != null && ids.forgetBefore(timestamp - retention)) {
      state.set(user, ids);
    }
  }

  /**
   * Moves the current user's entries of the legacy map state into its {@link SeenIds} (a change
   * like any other, pending until {@link #writeBack}), and clears the map. Entries keep their full
   * id when {@link #fullIds} says so.
   */
  void migrate(String user, MapState<String, SeenTransaction> legacy) throws Exception {
    SeenIds ids = of(user);
    for (Map.Entry<String, SeenTransaction> entry : legacy.entries()) {
      SeenTransaction seen = entry.getValue();
      ids.append(
          SeenIds.fingerprint(entry.getKey()),
          seen.eventTimeMillis(),
          seen.amountCents(),
          SeenIds.currencyCode(seen.currency()),
          fullIds ? entry.getKey() : null);
    }
    state.set(user, ids);
    legacy.clear();
  }

  /** How many users' values wait for {@link #writeBack}. */
  int pendingUsers() {
    return state.pendingUsers();
  }

  /** Whether as many users are pending as write-back may hold. */
  boolean full() {
    return state.full();
  }

  /** Writes every pending value to the state backend ({@link WriteBackState#writeBack}). */
  void writeBack(Consumer<String> selectKey) throws Exception {
    state.writeBack(selectKey);
  }

  /** Writes ahead of the next checkpoint barrier ({@link WriteBackState#writeBackAhead}). */
  boolean writeBackAhead(double remaining, Consumer<String> selectKey) throws Exception {
    return state.writeBackAhead(remaining, selectKey);
  }

  /** Ends a checkpoint interval ({@link WriteBackState#markInterval}). */
  void markInterval() {
    state.markInterval();
  }
}
