package dev.tally.runtime.topology;

import static dev.tally.domain.fixtures.Transactions.aTransaction;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.spending.SeenHours;
import dev.tally.domain.spending.SeenIds;
import dev.tally.domain.transaction.Transaction;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SeenTransactions} on Flink's real keyed state backends: a user's ids are stored by hour of
 * event time, a write-back writes only the hours changed since the last one, an expired hour is
 * removed, not rewritten, a cache miss reads the user's hours in one iteration, and the packed
 * value of the previous layout moves into hours. Observed through what reaches the map state.
 */
class SeenTransactionsTest {

  private static final Instant H10 = Instant.parse("2026-11-29T10:00:00Z");
  private static final long HOUR = 3_600_000L;
  private static final long RETENTION = Duration.ofHours(24).toMillis();

  private KeyedOneInputStreamOperatorTestHarness<String, String, String> harness;
  private Recording recording;
  private SeenTransactions seen;

  @AfterEach
  void close() throws Exception {
    harness.close();
  }

  private void open(String backend, int capacity) throws Exception {
    harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new KeyedProcessOperator<>(new WriteBackStateTest.Ignore()), in -> in, Types.STRING);
    StateBackend stateBackend =
        backend.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    harness.setStateBackend(stateBackend);
    harness.open();
    KeyedStateBackend<String> keyed = harness.getOperator().getKeyedStateBackend();
    recording =
        new Recording(
            keyed.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                SeenTransactions.DESCRIPTOR));
    seen =
        new SeenTransactions(recording, capacity, keyed.isSafeToReuseKVState(), RETENTION, false);
  }

  private void select(String user) {
    harness.getOperator().setCurrentKey(user);
  }

  private void count(Transaction tx) throws Exception {
    select(tx.userId());
    SeenHours ids = seen.of(tx.userId());
    long fingerprint = SeenIds.fingerprint(tx.transactionId());
    assertThat(ids.find(tx.transactionId(), fingerprint)).isNull();
    seen.remember(tx.userId(), ids, tx, fingerprint);
  }

  private void writeBack() throws Exception {
    seen.writeBack(this::select);
  }

  /**
   * Hour (offset from 10:00) to the number of ids the state holds for it in all its chunks, read
   * from the state.
   */
  private Map<Long, Integer> storedHours(String user) throws Exception {
    select(user);
    Map<Long, Integer> hours = new TreeMap<>();
    for (Map.Entry<Long, SeenIds> part : recording.delegate.entries()) {
      hours.merge(
          (part.getKey() - H10.toEpochMilli()) / HOUR, part.getValue().size(), Integer::sum);
    }
    return hours;
  }

  /** How many map entries (chunks) the state holds for the user. */
  private int storedChunks(String user) throws Exception {
    select(user);
    int chunks = 0;
    for (Map.Entry<Long, SeenIds> ignored : recording.delegate.entries()) {
      chunks++;
    }
    return chunks;
  }

  private static Transaction tx(String id, long secondsAfter10) {
    return aTransaction()
        .id(id)
        .user("alice")
        .amount(1)
        .at(H10.plusSeconds(secondsAfter10))
        .build();
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void aWriteBackWritesOnlyTheHoursChangedSinceTheLast(String backend) throws Exception {
    open(backend, 10);
    count(tx("a", 60));
    count(tx("b", 120));
    count(tx("c", 3_660));
    writeBack();
    assertThat(recording.putHours()).containsExactlyInAnyOrder(0L, 1L);
    assertThat(storedHours("alice")).containsExactly(Map.entry(0L, 2), Map.entry(1L, 1));

    recording.clearLog();
    count(tx("d", 3_720));
    writeBack();
    // Hour 10 is past: its part is not written again.
    assertThat(recording.putHours()).containsExactly(1L);
    assertThat(recording.removedHours()).isEmpty();
    assertThat(storedHours("alice")).containsExactly(Map.entry(0L, 2), Map.entry(1L, 2));

    recording.clearLog();
    count(tx("late", 180));
    writeBack();
    // An accepted late event changes its hour's part, and only that.
    assertThat(recording.putHours()).containsExactly(0L);
    assertThat(storedHours("alice")).containsExactly(Map.entry(0L, 3), Map.entry(1L, 2));
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void aWriteBackWritesTheIdsNewSinceTheLastNotTheWholeHour(String backend) throws Exception {
    // One user, 64 write-backs in one hour, 10 new ids each: rewriting the hour whole at every
    // write-back writes 10 * (1 + 2 + ... + 64) = 20,800 entries; writing the new ids as chunks,
    // merged size-tiered, writes each id a few times (O(log n)), here under 5 times on average.
    open(backend, 10);
    int writeBacks = 64;
    int perWriteBack = 10;
    int written = 0;
    for (int w = 0; w < writeBacks; w++) {
      for (int i = 0; i < perWriteBack; i++) {
        count(tx("w" + w + "-" + i, w * 50L + i));
      }
      recording.clearLog();
      writeBack();
      assertThat(recording.putHours()).containsOnly(0L);
      written += recording.putEntries;
    }
    int ids = writeBacks * perWriteBack;
    assertThat(written).as("entries written by %d write-backs", writeBacks).isLessThan(5 * ids);
    assertThat(storedHours("alice")).containsExactly(Map.entry(0L, ids));
    // Reads stay one iteration of a few chunks: at most log2(ids) + 1.
    assertThat(storedChunks("alice")).isLessThanOrEqualTo(10);

    // Read cold from the backend (a new cache over the same state): every id, each once.
    KeyedStateBackend<String> keyed = harness.getOperator().getKeyedStateBackend();
    SeenTransactions cold =
        new SeenTransactions(recording, 10, keyed.isSafeToReuseKVState(), RETENTION, false);
    select("alice");
    SeenHours read = cold.of("alice");
    assertThat(read.size()).isEqualTo(ids);
    for (int w = 0; w < writeBacks; w++) {
      String id = "w" + w + "-" + (w % perWriteBack);
      assertThat(read.find(id, SeenIds.fingerprint(id))).as(id).isNotNull();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void aQuietUsersHourStaysOneValueRewrittenNotChunked(String backend) throws Exception {
    // A few ids per write-back, the hour never past SeenHours.REWRITTEN_UP_TO: each write-back
    // rewrites the hour as one value under its start, as before chunks, and removes nothing (a
    // chunk per write-back would add keys to read and, merged, deletes to write).
    open(backend, 10);
    for (int w = 0; w < 8; w++) {
      for (int i = 0; i < 3; i++) {
        count(tx("q" + w + "-" + i, w * 50L + i));
      }
      recording.clearLog();
      writeBack();
      assertThat(recording.puts).as("write-back %d", w).containsExactly(H10.toEpochMilli());
      assertThat(recording.removes).as("write-back %d", w).isEmpty();
    }
    assertThat(storedChunks("alice")).isEqualTo(1);
    assertThat(storedHours("alice")).containsExactly(Map.entry(0L, 24));
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void anHourStoredWholeByTheLayoutBeforeChunksReadsAsItsFirstChunk(String backend)
      throws Exception {
    open(backend, 1);
    SeenIds whole = SeenIds.empty();
    whole.add(tx("a", 60), false);
    whole.add(tx("b", 120), false);
    select("alice");
    // The layout before chunks: the hour's ids in one value under the hour's start.
    recording.delegate.put(H10.toEpochMilli(), whole);

    SeenHours ids = seen.of("alice");
    assertThat(ids.size()).isEqualTo(2);
    assertThat(ids.find("a", SeenIds.fingerprint("a"))).isNotNull();
    count(tx("c", 180));
    writeBack();
    // The new id alone is not written: as large as the old chunk's, it absorbs it.
    assertThat(recording.putHours()).containsExactly(0L);
    assertThat(storedHours("alice")).containsExactly(Map.entry(0L, 3));

    // Evicted by bob, alice is read cold from the backend: all three ids, in whatever chunks.
    count(aTransaction().id("x").user("bob").amount(1).at(H10).build());
    writeBack();
    select("alice");
    SeenHours again = seen.of("alice");
    assertThat(again.size()).isEqualTo(3);
    for (String id : new String[] {"a", "b", "c"}) {
      assertThat(again.find(id, SeenIds.fingerprint(id))).as(id).isNotNull();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void anExpiredHourIsRemovedNotRewritten(String backend) throws Exception {
    open(backend, 10);
    count(tx("a", 60));
    count(tx("c", 3_660));
    writeBack();
    recording.clearLog();

    select("alice");
    seen.cleanUpAt("alice", H10.toEpochMilli() + HOUR + RETENTION);
    writeBack();
    assertThat(recording.removedHours()).containsExactly(0L);
    assertThat(recording.putHours()).isEmpty();
    assertThat(storedHours("alice")).containsExactly(Map.entry(1L, 1));

    recording.clearLog();
    select("alice");
    seen.cleanUpAt("alice", H10.toEpochMilli() + 2 * HOUR + RETENTION);
    writeBack();
    assertThat(recording.removedHours()).containsExactly(1L);
    assertThat(storedHours("alice")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void aCacheMissReadsEveryHourOfTheUserInOneIteration(String backend) throws Exception {
    // Capacity 1: bob's change pushes alice out of the cache once written.
    open(backend, 1);
    for (int h = 0; h < 5; h++) {
      count(tx("a" + h, h * HOUR / 1000 + 1));
    }
    writeBack();
    count(aTransaction().id("x").user("bob").amount(1).at(H10).build());
    writeBack();
    recording.clearLog();

    select("alice");
    SeenHours ids = seen.of("alice");
    assertThat(ids.size()).isEqualTo(5);
    assertThat(ids.find("a3", SeenIds.fingerprint("a3"))).isNotNull();
    assertThat(recording.iterations).isEqualTo(1);
    assertThat(recording.gets).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void thePackedValueOfThePreviousLayoutMovesIntoHours(String backend) throws Exception {
    open(backend, 10);
    KeyedStateBackend<String> keyed = harness.getOperator().getKeyedStateBackend();
    ValueState<SeenIds> packed =
        keyed.getPartitionedState(
            VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, SeenTransactions.PACKED);
    SeenIds old = SeenIds.empty();
    old.add(tx("a", 60), true);
    old.add(tx("b", 3_660), false);
    old.add(tx("c", 2 * 3_600 + 1), false);
    select("alice");
    packed.update(old);

    seen.migratePacked("alice", packed);
    writeBack();

    select("alice");
    assertThat(packed.value()).isNull();
    assertThat(storedHours("alice"))
        .containsExactly(Map.entry(0L, 1), Map.entry(1L, 1), Map.entry(2L, 1));
    SeenHours ids = seen.of("alice");
    assertThat(ids.find("b", SeenIds.fingerprint("b"))).isNotNull();
    // The full id kept before is kept still: only an equal id matches it.
    select("alice");
    SeenIds hour10 = recording.delegate.get(H10.toEpochMilli());
    assertThat(hour10.idAt(0)).isEqualTo("a");
  }

  /** Logs the hours written and removed, and counts the reads, that reach the backend. */
  private static final class Recording implements MapState<Long, SeenIds> {
    final MapState<Long, SeenIds> delegate;
    final List<Long> puts = new ArrayList<>();
    final List<Long> removes = new ArrayList<>();
    int putEntries;
    int gets;
    int iterations;

    Recording(MapState<Long, SeenIds> delegate) {
      this.delegate = delegate;
    }

    void clearLog() {
      puts.clear();
      removes.clear();
      putEntries = 0;
      gets = 0;
      iterations = 0;
    }

    List<Long> putHours() {
      return puts.stream().map(h -> (h - H10.toEpochMilli()) / HOUR).toList();
    }

    List<Long> removedHours() {
      return removes.stream().map(h -> (h - H10.toEpochMilli()) / HOUR).toList();
    }

    @Override
    public SeenIds get(Long key) throws Exception {
      gets++;
      return delegate.get(key);
    }

    @Override
    public void put(Long key, SeenIds value) throws Exception {
      puts.add(key);
      putEntries += value.size();
      delegate.put(key, value);
    }

    @Override
    public void putAll(Map<Long, SeenIds> map) throws Exception {
      puts.addAll(map.keySet());
      map.values().forEach(v -> putEntries += v.size());
      delegate.putAll(map);
    }

    @Override
    public void remove(Long key) throws Exception {
      removes.add(key);
      delegate.remove(key);
    }

    @Override
    public boolean contains(Long key) throws Exception {
      gets++;
      return delegate.contains(key);
    }

    @Override
    public Iterable<Map.Entry<Long, SeenIds>> entries() throws Exception {
      iterations++;
      return delegate.entries();
    }

    @Override
    public Iterable<Long> keys() throws Exception {
      iterations++;
      return delegate.keys();
    }

    @Override
    public Iterable<SeenIds> values() throws Exception {
      iterations++;
      return delegate.values();
    }

    @Override
    public Iterator<Map.Entry<Long, SeenIds>> iterator() throws Exception {
      iterations++;
      return delegate.iterator();
    }

    @Override
    public boolean isEmpty() throws Exception {
      gets++;
      return delegate.isEmpty();
    }

    @Override
    public void clear() {
      delegate.clear();
    }
  }
}
