package dev.tally.runtime.topology;

import dev.tally.domain.spending.SeenHours;
import dev.tally.domain.spending.SeenIds;
import dev.tally.domain.spending.SeenTransaction;
import dev.tally.domain.transaction.Transaction;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * What the aggregator remembers of the current user's counted transactions, for the dedupe
 * retention of event time: the user's ids ({@link SeenHours}) stored by hour of event time, each
 * hour in a few chunks (map state {@value #STATE}, {@link SeenHours#chunkKey} to a {@link SeenIds}:
 * hour start plus the chunk's sequence; a part stored whole under its hour's start, the layout
 * before chunks, is that hour's chunk 0, read as it is), behind the same write-back cache as the
 * open windows ({@link WriteBackState}). So a busy user's dedupe costs one RocksDB read (one
 * iteration of the user's parts) and a write of the hours it changed per checkpoint interval, not a
 * get and a put per event, and a new id is a hash probe on the heap. A write-back writes only the
 * ids new since the last one, as a chunk of their hour (the current hours, and an hour an accepted
 * late event reached), merged size-tiered with the hour's youngest chunks, so the bytes a
 * checkpoint interval writes follow its events, not the user's whole memory nor its current hour's
 * (docs/benchmarks.md "Scale", "Anomalies"). Forgetting runs on hour-aligned event-time timers, so
 * one timer serves the windows of a whole hour and an id is kept at least the retention after its
 * window's end; an hour wholly expired is removed, not rewritten.
 *
 * <p>State of older releases is moved into this form once, on restore: one packed value per user
 * ({@value #PACKED_STATE}, {@link #migratePacked}) and, before that, a map entry per id ({@value
 * #LEGACY_STATE}, {@link #migrate}).
 */
final class SeenTransactions {

  /**
   * Name of the keyed map state holding each user's ids, chunk key ({@link SeenHours#chunkKey}) to
   * that chunk's {@link SeenIds}.
   */
  static final String STATE = "seen-ids-by-user-hour";

  /** The map state of {@link #STATE}. */
  static final MapStateDescriptor<Long, SeenIds> DESCRIPTOR =
      new MapStateDescriptor<>(STATE, Types.LONG, StateTypes.SEEN_IDS);

  /**
   * Name of the keyed value state, each user's ids in one {@link SeenIds}, of releases up to
   * 99560ee.
   */
  static final String PACKED_STATE = "seen-ids-by-user";

  /** The packed value state, read only to migrate it. */
  static final ValueStateDescriptor<SeenIds> PACKED =
      new ValueStateDescriptor<>(PACKED_STATE, StateTypes.SEEN_IDS);

  /** Name of the keyed map state, id to {@link SeenTransaction}, of releases up to b3f3bdb. */
  static final String LEGACY_STATE = "seen-transactions";

  /** The legacy map state, read only to migrate it. */
  static final MapStateDescriptor<String, SeenTransaction> LEGACY =
      new MapStateDescriptor<>(
          LEGACY_STATE, TypeInformation.of(String.class), StateTypes.SEEN_TRANSACTION);

  private static final long CLEANUP_GRANULARITY = SeenHours.PART_MILLIS;

  private final WriteBackState<SeenHours> state;
  private final long retention;
  private final boolean fullIds;

  /**
   * @param state the map state of the current user ({@link #DESCRIPTOR})
   * @param capacity how many users' changes may wait on the heap ({@link WriteBackState})
   * @param keepWritten whether written values stay on the heap ({@link WriteBackState})
   * @param fullIds whether new entries keep the full id, not only its fingerprint
   */
  SeenTransactions(
      MapState<Long, SeenIds> state,
      int capacity,
      boolean keepWritten,
      long retentionMillis,
      boolean fullIds) {
    // A user whose ids are all forgotten still owes the removal of its parts: not "empty" until
    // written, so that a read before the write-back does not lose it.
    this.state =
        new WriteBackState<>(
            new ByHour(state), capacity, keepWritten, ids -> ids.isEmpty() && !ids.hasChanges());
    this.retention = retentionMillis;
    this.fullIds = fullIds;
  }

  /** The current user's remembered ids, empty for none; pass it back to {@link #remember}. */
  SeenHours of(String user) throws Exception {
    SeenHours ids = state.get(user);
    return ids == null ? SeenHours.empty() : ids;
  }

  /**
   * Remembers a counted transaction of the current user, whose ids {@link #of} gave.
   *
   * @param fingerprint {@link SeenIds#fingerprint} of its id, as the lookup computed it
   */
  void remember(String user, SeenHours ids, Transaction tx, long fingerprint) throws Exception {
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
    SeenHours ids = state.get(user);
    if (ids != null && ids.forgetBefore(timestamp - retention)) {
      state.set(user, ids);
    }
  }

  /**
   * Moves the current user's entries of the legacy map state into its {@link SeenHours} (a change
   * like any other, pending until {@link #writeBack}), and clears the map. Entries keep their full
   * id when {@link #fullIds} says so.
   */
  void migrate(String user, MapState<String, SeenTransaction> legacy) throws Exception {
    SeenHours ids = of(user);
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

  /**
   * Moves the current user's packed value ({@value #PACKED_STATE}) into its hours (a change like
   * any other, pending until {@link #writeBack}), and clears the value. Entries keep what they
   * kept: full ids stay, fingerprints stay fingerprints.
   */
  void migratePacked(String user, ValueState<SeenIds> packed) throws Exception {
    SeenIds old = packed.value();
    if (old == null) {
      return;
    }
    SeenHours ids = of(user);
    ids.appendAllOf(old);
    state.set(user, ids);
    packed.clear();
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

  /**
   * A user's ids as the chunks of its map state: read in one iteration of the user's entries (on
   * RocksDB one prefix scan, not a get per chunk: which exist is not known before), written as
   * {@link SeenHours#changedParts} says, a put per new or merged chunk, a remove per chunk merged
   * away or left empty. Every read builds a fresh {@link SeenHours}, so no stored object is ever
   * changed in place.
   */
  private static final class ByHour implements WriteBackState.Store<SeenHours> {

    private final MapState<Long, SeenIds> parts;

    ByHour(MapState<Long, SeenIds> parts) {
      this.parts = parts;
    }

    @Override
    public SeenHours read() throws Exception {
      Iterable<Map.Entry<Long, SeenIds>> stored = parts.entries();
      SeenHours ids = null;
      if (stored != null) {
        for (Map.Entry<Long, SeenIds> part : stored) {
          if (ids == null) {
            ids = SeenHours.empty();
          }
          ids.addStoredPart(part.getKey(), part.getValue());
        }
      }
      return ids;
    }

    @Override
    public void write(SeenHours ids) throws Exception {
      for (Map.Entry<Long, SeenIds> part : ids.changedParts().entrySet()) {
        if (part.getValue().isEmpty()) {
          parts.remove(part.getKey());
        } else {
          parts.put(part.getKey(), part.getValue());
        }
      }
      ids.markWritten();
    }
  }
}
