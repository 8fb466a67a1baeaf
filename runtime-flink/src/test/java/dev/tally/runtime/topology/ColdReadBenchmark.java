package dev.tally.runtime.topology;

import dev.tally.domain.spending.SeenHours;
import dev.tally.domain.spending.SeenIds;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cold read of one user's dedupe ids ({@link SeenTransactions}, a user not on the heap: after a
 * restore, or outside the write-back cache) against a real, freshly restored RocksDB: state written
 * through Flink's keyed operator harness, snapshotted incrementally and restored into a new
 * harness, as a TaskManager's recovery finds it. {@link #read} is the whole read and the event's
 * first lookup (a new id); the others split it: {@link #scanKeys} the RocksDB prefix scan alone
 * (iterator, seek, the entries' bytes over JNI, the keys' deserialization), {@link #scanEntries}
 * the scan and every chunk's deserialization, {@link #deserialize} that deserialization alone from
 * bytes, and {@link #build} building the user's {@link SeenHours} from deserialized chunks and its
 * first lookup. Each user has {@link #hours} hours of {@link #idsPerHour} ids, one chunk an hour
 * (what a quiet user's write-back leaves: {@link SeenHours} keeps an hour of up to 32 ids one
 * value); the default run's users have about 8 ids an hour over 6 hours.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ColdReadBenchmark {

  private static final int USERS = 20_000;
  private static final long HOUR = SeenHours.PART_MILLIS;

  /** Hours of ids per user: 6 as in the default run, 24 the whole retention. */
  @Param({"6", "24"})
  public int hours;

  /** Ids per hour of a user. */
  @Param({"8"})
  public int idsPerHour;

  private KeyedOneInputStreamOperatorTestHarness<String, String, String> harness;
  private KeyedStateBackend<String> backend;
  private MapState<Long, SeenIds> parts;
  private SeenTransactions seen;
  private byte[][] oneUsersBytes;
  private List<Map.Entry<Long, SeenIds>> oneUsersChunks;
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    long base = Instant.parse("2026-11-29T00:00:00Z").toEpochMilli();
    SplittableRandom random = new SplittableRandom(42);
    KeyedOneInputStreamOperatorTestHarness<String, String, String> writer = open(null);
    MapState<Long, SeenIds> written = mapState(writer);
    KeyedStateBackend<String> writing = backendOf(writer);
    for (int u = 0; u < USERS; u++) {
      writing.setCurrentKey(user(u));
      for (int h = 0; h < hours; h++) {
        SeenIds chunk = SeenIds.empty();
        for (int i = 0; i < idsPerHour; i++) {
          chunk.append(
              random.nextLong(),
              base + h * HOUR + random.nextLong(HOUR),
              random.nextLong(-5_000, 500_000),
              SeenIds.currencyCode("EUR"),
              null);
        }
        written.put(SeenHours.chunkKey(base + h * HOUR, 0), chunk);
      }
    }
    OperatorSubtaskState snapshot = writer.snapshot(1, 1);
    writer.close();
    harness = open(snapshot);
    backend = ColdReadBenchmark.<String>backendOf(harness);
    parts = mapState(harness);
    seen = new SeenTransactions(parts, 0, false, 24 * HOUR, false);

    backend.setCurrentKey(user(0));
    oneUsersChunks = new ArrayList<>();
    List<byte[]> bytes = new ArrayList<>();
    for (Map.Entry<Long, SeenIds> entry : parts.entries()) {
      oneUsersChunks.add(Map.entry(entry.getKey(), entry.getValue()));
      DataOutputSerializer out = new DataOutputSerializer(64);
      SeenIdsSerializer.INSTANCE.serialize(entry.getValue(), out);
      bytes.add(out.getCopyOfBuffer());
    }
    oneUsersBytes = bytes.toArray(new byte[0][]);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    harness.close();
  }

  /** The whole cold read of a user, then the lookup of a new id. */
  @Benchmark
  public Object read() throws Exception {
    String user = nextUser();
    backend.setCurrentKey(user);
    return seen.of(user).find("new", 42L);
  }

  /** The prefix scan alone: no value deserialized. */
  @Benchmark
  public long scanKeys() throws Exception {
    backend.setCurrentKey(nextUser());
    long sum = 0;
    for (Long key : parts.keys()) {
      sum += key;
    }
    return sum;
  }

  /** The prefix scan and every chunk's deserialization, no {@link SeenHours}. */
  @Benchmark
  public void scanEntries(Blackhole sink) throws Exception {
    backend.setCurrentKey(nextUser());
    for (Map.Entry<Long, SeenIds> entry : parts.entries()) {
      sink.consume(entry.getValue());
    }
  }

  /** One user's chunks deserialized from their bytes: no RocksDB. */
  @Benchmark
  public void deserialize(Blackhole sink) throws Exception {
    DataInputDeserializer in = new DataInputDeserializer();
    for (byte[] chunk : oneUsersBytes) {
      in.setBuffer(chunk);
      sink.consume(SeenIdsSerializer.INSTANCE.deserialize(in));
    }
  }

  /** One user's {@link SeenHours} built from deserialized chunks, then a new id's lookup. */
  @Benchmark
  public Object build() {
    SeenHours ids = SeenHours.empty();
    for (Map.Entry<Long, SeenIds> chunk : oneUsersChunks) {
      ids.addStoredPart(chunk.getKey(), chunk.getValue());
    }
    return ids.find("new", 42L);
  }

  private String nextUser() {
    next = (next + 7919) % USERS;
    return user(next);
  }

  private static String user(int u) {
    return "user-" + u;
  }

  private static KeyedOneInputStreamOperatorTestHarness<String, String, String> open(
      OperatorSubtaskState restored) throws Exception {
    KeyedOneInputStreamOperatorTestHarness<String, String, String> harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new KeyedProcessOperator<>(new Nothing()), value -> value, Types.STRING);
    Configuration config = new Configuration();
    config.set(RocksDBOptions.PREDEFINED_OPTIONS, "FLASH_SSD_OPTIMIZED");
    harness.setStateBackend(
        new EmbeddedRocksDBStateBackend(true)
            .configure(config, ColdReadBenchmark.class.getClassLoader()));
    // The memory storage caps a snapshot at a few MiB; the SST files go to a local directory.
    harness.setCheckpointStorage(
        new FileSystemCheckpointStorage(
            Files.createTempDirectory("cold-read-checkpoints").toUri(), 0));
    if (restored != null) {
      harness.initializeState(restored);
    }
    harness.open();
    return harness;
  }

  private static MapState<Long, SeenIds> mapState(
      KeyedOneInputStreamOperatorTestHarness<String, String, String> harness) throws Exception {
    KeyedStateBackend<String> backend = ColdReadBenchmark.<String>backendOf(harness);
    return backend.getPartitionedState(
        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, SeenTransactions.DESCRIPTOR);
  }

  @SuppressWarnings("unchecked")
  private static <K> KeyedStateBackend<K> backendOf(
      KeyedOneInputStreamOperatorTestHarness<K, ?, ?> harness) {
    return (KeyedStateBackend<K>)
        ((AbstractStreamOperator<?>) harness.getOperator()).getKeyedStateBackend();
  }

  /** An operator for its keyed state alone. */
  private static final class Nothing extends KeyedProcessFunction<String, String, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(String value, Context ctx, Collector<String> out) {}
  }
}
