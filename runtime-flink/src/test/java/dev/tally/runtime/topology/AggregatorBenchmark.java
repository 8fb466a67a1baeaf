package dev.tally.runtime.topology;

import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
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

/**
 * The aggregator's per-event state update on one thread, through Flink's keyed operator harness:
 * key serialization, the dedupe lookup and insert, the window total's read-modify-write and, for a
 * window's first event, its timers. Every event is a new, accepted transaction of one of {@link
 * #users} users (three currencies, six hours of event time), and no watermark arrives, so state
 * grows as it does under a backlog. With 1,000,000 users most events find their user outside the
 * write-back cache (100,000 users), as a subtask of a large job does. The op includes building the
 * {@code Transaction} (its constructor checks the field rules). {@code rocksdb} is the job's
 * backend and RocksDB profile, {@code rocksdb-bloom} the same with bloom filters; {@code hashmap}
 * (objects on the heap) shows what RocksDB's serialization and JNI calls cost.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class AggregatorBenchmark {

  private static final String[] CURRENCIES = {"EUR", "USD", "GBP"};
  // Larger than the users, so that every user is drawn (a pool of 65,536 reached only about half of
  // 100,000 users, all inside the write-back cache).
  private static final int POOL = 1 << 20;

  @Param({"rocksdb", "rocksdb-bloom", "hashmap"})
  public String backend;

  /** {@code aggregation.write-back-users}: 0 writes every change to the backend at once. */
  @Param({"0", "" + AggregationSettings.DEFAULT_WRITE_BACK_USERS})
  public int writeBackUsers;

  /** How many users the events are drawn from, uniformly. */
  @Param({"100000", "1000000"})
  public int users;

  private KeyedOneInputStreamOperatorTestHarness<String, SourcedTransaction, WindowedSpending>
      harness;
  private String[] userIds;
  private String[] currencies;
  private long[] amounts;
  private Instant[] times;
  private byte[] value;
  private long next;

  @Setup(Level.Iteration)
  public void setUp() throws Exception {
    SplittableRandom random = new SplittableRandom(42);
    long base = Instant.parse("2026-11-29T00:00:00Z").toEpochMilli();
    userIds = new String[POOL];
    currencies = new String[POOL];
    amounts = new long[POOL];
    times = new Instant[POOL];
    for (int i = 0; i < POOL; i++) {
      userIds[i] = "user-" + random.nextInt(users);
      currencies[i] = CURRENCIES[random.nextInt(CURRENCIES.length)];
      amounts[i] = random.nextLong(-5_000, 500_000);
      times[i] = Instant.ofEpochMilli(base + (long) i * 6 * 3_600_000L / POOL);
    }
    value = "{\"transaction_id\":\"tx\"}".getBytes(StandardCharsets.UTF_8);
    StateBackend state = new HashMapStateBackend();
    if (backend.startsWith("rocksdb")) {
      // The job's RocksDB profile; "rocksdb-bloom" adds bloom filters, which let a lookup of an id
      // never seen (every new transaction's dedupe check) skip SST files without reading them.
      Configuration config = new Configuration();
      config.set(RocksDBOptions.PREDEFINED_OPTIONS, "FLASH_SSD_OPTIMIZED");
      config.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, backend.equals("rocksdb-bloom"));
      state = new EmbeddedRocksDBStateBackend().configure(config, getClass().getClassLoader());
    }
    harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new SpendingAggregatorOperator(
                new SpendingAggregator(AggregationSettings.defaults()), writeBackUsers),
            new SpendingTopology.ByUser(),
            Types.STRING);
    harness.setStateBackend(state);
    harness.open();
  }

  @TearDown(Level.Iteration)
  public void tearDown() throws Exception {
    harness.close();
  }

  @Benchmark
  public void processAccepted() throws Exception {
    long n = next++;
    int i = (int) (n & (POOL - 1));
    Transaction tx = new Transaction("tx-" + n, userIds[i], amounts[i], currencies[i], times[i]);
    harness.processElement(
        new SourcedTransaction(
            tx, new SourceRecord("financial-transactions", 0, n, -1, null, value)),
        times[i].toEpochMilli());
  }
}
