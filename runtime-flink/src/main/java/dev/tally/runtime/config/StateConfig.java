package dev.tally.runtime.config;

import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigReader;
import dev.tally.ports.config.InvalidConfigException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend.PriorityQueueStateType;
import org.apache.flink.state.rocksdb.PredefinedOptions;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBNativeMetricOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;

/**
 * State settings and their keys: the embedded RocksDB backend, always with incremental checkpoints
 * unless switched off.
 *
 * @param checkpointDirectory see {@link #CHECKPOINT_DIRECTORY}
 * @param savepointDirectory see {@link #SAVEPOINT_DIRECTORY}; {@code null} for none
 * @param incremental see {@link #INCREMENTAL}: upload only new RocksDB files on each checkpoint
 * @param localRecovery see {@link #LOCAL_RECOVERY}
 * @param predefinedOptions see {@link #ROCKSDB_PREDEFINED_OPTIONS}
 * @param managedMemory see {@link #ROCKSDB_MANAGED_MEMORY}: RocksDB's block cache and write buffers
 * @param timers see {@link #ROCKSDB_TIMERS}
 * @param writeBufferBytes see {@link #ROCKSDB_WRITE_BUFFER_SIZE}
 * @param writeBuffers see {@link #ROCKSDB_WRITE_BUFFERS}
 * @param level0CompactionTrigger see {@link #ROCKSDB_LEVEL0_COMPACTION_TRIGGER}
 */
public record StateConfig(
    String checkpointDirectory,
    String savepointDirectory,
    boolean incremental,
    boolean localRecovery,
    PredefinedOptions predefinedOptions,
    boolean managedMemory,
    PriorityQueueStateType timers,
    long writeBufferBytes,
    int writeBuffers,
    int level0CompactionTrigger) {

  /** Where checkpoints go. */
  public static final ConfigKey<String> CHECKPOINT_DIRECTORY =
      ConfigKey.string("state.checkpoint-directory")
          .required()
          .check(
              uri -> uri.contains("://"),
              uri ->
                  "must be a URI such as file:///var/tally/checkpoints or s3://bucket/checkpoints,"
                      + " not "
                      + uri)
          .description(
              "Checkpoint storage URI: `file:///var/tally/checkpoints` or"
                  + " `s3://bucket/checkpoints`.");

  /** The default savepoint target. */
  public static final ConfigKey<String> SAVEPOINT_DIRECTORY =
      ConfigKey.string("state.savepoint-directory").description("Default savepoint target URI.");

  /** Incremental checkpoints. */
  public static final ConfigKey<Boolean> INCREMENTAL =
      ConfigKey.bool("state.incremental")
          .defaultValue(true)
          .description("Incremental RocksDB checkpoints.");

  /** Local recovery. */
  public static final ConfigKey<Boolean> LOCAL_RECOVERY =
      ConfigKey.bool("state.local-recovery")
          .defaultValue(false)
          .description("Local recovery from a TaskManager-local copy of state.");

  /** The RocksDB tuning profile. */
  public static final ConfigKey<PredefinedOptions> ROCKSDB_PREDEFINED_OPTIONS =
      ConfigKey.enumeration("state.rocksdb.predefined-options", PredefinedOptions.class)
          .defaultValue(PredefinedOptions.FLASH_SSD_OPTIMIZED)
          .required()
          .description(
              "RocksDB profile: default, spinning-disk-optimized,"
                  + " spinning-disk-optimized-high-mem, flash-ssd-optimized.");

  /** RocksDB's memory from Flink managed memory. */
  public static final ConfigKey<Boolean> ROCKSDB_MANAGED_MEMORY =
      ConfigKey.bool("state.rocksdb.managed-memory")
          .defaultValue(true)
          .description(
              "Size RocksDB's memory from Flink managed memory (bounded, no surprise OOM kills).");

  /** Where timers live. */
  public static final ConfigKey<PriorityQueueStateType> ROCKSDB_TIMERS =
      ConfigKey.enumeration("state.rocksdb.timers", PriorityQueueStateType.class)
          .defaultValue(PriorityQueueStateType.ROCKSDB)
          .required()
          .description(
              "Where timers live: rocksdb (spilled and checkpointed incrementally with the rest of"
                  + " the state) or heap (held in JVM memory, written whole at every checkpoint);"
                  + " heap was not faster on the benchmark (docs/benchmarks-history.md).");

  /**
   * The size of a column family's memtable. A checkpoint's synchronous phase takes RocksDB's native
   * checkpoint, which with the write-ahead log off (as Flink runs it) first flushes every memtable,
   * on the task thread's watch: nothing is processed, no alert emitted, until it is done. RocksDB's
   * own 64 MiB let a whole interval's writes wait in memory for that flush; a small memtable is
   * flushed in the background as it fills during the interval, so the barrier flushes at most this
   * much of each column family plus any full ones still queued (on the anomaly-latency bench, 25 to
   * 430 ms per subtask at 4 MiB; docs/benchmarks.md "Anomalies"). The cost: more, smaller level-0
   * files and so more compactions, and write stalls whenever the task writes faster than RocksDB's
   * flush thread empties them (there, the dedupe ids, over 90 % of the bytes). Smaller is not
   * better: at 1 MiB the barrier flushed 70 % fewer bytes in only a quarter less time (a flush
   * costs per column family about as much as per megabyte), while four times the flushes and three
   * times the compactions made every latency figure of that bench worse.
   */
  public static final ConfigKey<Long> ROCKSDB_WRITE_BUFFER_SIZE =
      ConfigKey.bytes("state.rocksdb.write-buffer-size")
          .defaultValue(4L * 1024 * 1024)
          .atLeast(1024L * 1024)
          .description(
              "Size of one RocksDB memtable of a column family. A checkpoint's synchronous phase"
                  + " flushes every memtable while the task processes nothing; a small one is"
                  + " flushed in the background as it fills between checkpoints, so the barrier"
                  + " flushes at most this much per column family (RocksDB's own 64 MiB held a"
                  + " whole interval's writes for the barrier). Smaller makes more level-0 files"
                  + " to compact, and writes stall when they come faster than the flushes.");

  /**
   * How many memtables a column family may hold: with small ones, room to keep writing while full
   * ones are flushed in the background instead of stalling the writer (the task thread). With 4 the
   * anomaly-latency bench's aggregator stalled 17 to 27 times a job, with 12 at most once, and
   * every latency figure fell (docs/benchmarks.md "Anomalies").
   */
  public static final ConfigKey<Integer> ROCKSDB_WRITE_BUFFERS =
      ConfigKey.integer("state.rocksdb.write-buffers")
          .defaultValue(12)
          .between(2, 16)
          .description(
              "Memtables a RocksDB column family may hold, the one written and full ones being"
                  + " flushed: room to keep writing while they are, instead of a stalled task.");

  /**
   * How many level-0 files of a column family RocksDB lets pile up before it merges them into level
   * 1. A level-0 file spans every key (a memtable holds writes for any user), so each such
   * compaction rewrites all of level 1: with the 4 MiB memtables and RocksDB's own trigger of 4, a
   * compaction merged 16 MiB into a level 1 of up to 256 MiB, many times an interval at a million
   * users. At 16, on the scale bench's 20M events of 1M users, RocksDB's compaction spent 99
   * against 343 CPU-s and the checkpoints uploaded 5.5 against 14.0 GiB, for 15 % more events/s;
   * the aggregator's own reads, which look into more level-0 files, took 112 CPU-s of that back;
   * the anomaly-latency bench's alert p99s were lower in three pairs (docs/benchmarks.md "Scale").
   * Writes slow down 16 files above the trigger and stop 32 above, RocksDB's own distances.
   */
  public static final ConfigKey<Integer> ROCKSDB_LEVEL0_COMPACTION_TRIGGER =
      ConfigKey.integer("state.rocksdb.level0-compaction-trigger")
          .defaultValue(16)
          .between(2, 64)
          .description(
              "Level-0 files of a RocksDB column family that start a compaction into level 1."
                  + " Each merges into all of level 1, so a higher trigger rewrites it less often,"
                  + " at the price of reads that look into more files. Writes slow down 16 files"
                  + " above it and stop 32 above.");

  public StateConfig {
    List<String> problems = new ArrayList<>();
    CHECKPOINT_DIRECTORY.check(checkpointDirectory, problems);
    SAVEPOINT_DIRECTORY.check(savepointDirectory, problems);
    ROCKSDB_PREDEFINED_OPTIONS.check(predefinedOptions, problems);
    ROCKSDB_TIMERS.check(timers, problems);
    ROCKSDB_WRITE_BUFFER_SIZE.check(writeBufferBytes, problems);
    ROCKSDB_WRITE_BUFFERS.check(writeBuffers, problems);
    ROCKSDB_LEVEL0_COMPACTION_TRIGGER.check(level0CompactionTrigger, problems);
    InvalidConfigException.throwIfAny("state config", problems);
  }

  /** Reads the state keys; {@code null} when they have problems, which {@code r} records. */
  static StateConfig read(ConfigReader r) {
    String checkpoints = r.get(CHECKPOINT_DIRECTORY);
    String savepoints = r.get(SAVEPOINT_DIRECTORY);
    boolean incremental = r.get(INCREMENTAL);
    boolean localRecovery = r.get(LOCAL_RECOVERY);
    PredefinedOptions profile = r.get(ROCKSDB_PREDEFINED_OPTIONS);
    boolean managedMemory = r.get(ROCKSDB_MANAGED_MEMORY);
    PriorityQueueStateType timers = r.get(ROCKSDB_TIMERS);
    long writeBufferBytes = r.get(ROCKSDB_WRITE_BUFFER_SIZE);
    int writeBuffers = r.get(ROCKSDB_WRITE_BUFFERS);
    int level0CompactionTrigger = r.get(ROCKSDB_LEVEL0_COMPACTION_TRIGGER);
    return r.build(
        "state.*",
        () ->
            new StateConfig(
                checkpoints,
                savepoints,
                incremental,
                localRecovery,
                profile,
                managedMemory,
                timers,
                writeBufferBytes,
                writeBuffers,
                level0CompactionTrigger));
  }

  /** Writes these settings as Flink options. */
  public void applyTo(Configuration flink) {
    flink.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
    flink.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    flink.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDirectory);
    if (savepointDirectory != null) {
      flink.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, savepointDirectory);
    }
    flink.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, incremental);
    flink.set(StateRecoveryOptions.LOCAL_RECOVERY, localRecovery);
    flink.set(RocksDBOptions.PREDEFINED_OPTIONS, predefinedOptions.name());
    flink.set(RocksDBOptions.USE_MANAGED_MEMORY, managedMemory);
    flink.set(RocksDBOptions.TIMER_SERVICE_FACTORY, timers);
    // Every new transaction's dedupe check looks up an id that is not there. Bloom filters let
    // RocksDB rule an SST file out without reading it; without them a miss probes every level
    // (JMH AggregatorBenchmark, rocksdb vs rocksdb-bloom).
    flink.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, true);
    flink.set(RocksDBConfigurableOptions.WRITE_BUFFER_SIZE, new MemorySize(writeBufferBytes));
    flink.set(RocksDBConfigurableOptions.MAX_WRITE_BUFFER_NUMBER, writeBuffers);
    // Flink has no key for the level-0 triggers: its options factory, configured from the job's
    // options, sets them on every column family after Flink's own.
    flink.set(RocksDBOptions.OPTIONS_FACTORY, Level0OptionsFactory.class.getName());
    flink.set(Level0OptionsFactory.COMPACTION_TRIGGER, level0CompactionTrigger);
    // The dedupe state's size for operators (docs/behaviour.md "Metrics"): RocksDB's own estimates
    // of each state's keys and live bytes, with the state's name as a label, so that no operator
    // has to count its entries on the hot path.
    flink.set(RocksDBNativeMetricOptions.ESTIMATE_NUM_KEYS, true);
    flink.set(RocksDBNativeMetricOptions.ESTIMATE_LIVE_DATA_SIZE, true);
    flink.set(RocksDBNativeMetricOptions.COLUMN_FAMILY_AS_VARIABLE, true);
  }
}
