package dev.tally.runtime.config;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend.PriorityQueueStateType;
import org.apache.flink.state.rocksdb.PredefinedOptions;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;

/**
 * State keys: the embedded RocksDB backend, always with incremental checkpoints unless switched
 * off.
 *
 * @param checkpointDirectory where checkpoints go: {@code file:///…} or {@code s3://bucket/path}
 * @param savepointDirectory default target of savepoints, or {@code null}
 * @param incremental upload only new RocksDB files on each checkpoint
 * @param localRecovery keep a local copy of state for fast recovery on the same TaskManager
 * @param predefinedOptions RocksDB tuning profile
 * @param managedMemory let Flink size RocksDB's block cache and write buffers from managed memory
 * @param timers where event-time and processing-time timers live: in RocksDB or on the heap
 */
public record StateConfig(
    String checkpointDirectory,
    String savepointDirectory,
    boolean incremental,
    boolean localRecovery,
    PredefinedOptions predefinedOptions,
    boolean managedMemory,
    PriorityQueueStateType timers) {

  /**
   * Checkpoint storage URI: {@code file:///var/tally/checkpoints} or {@code
   * s3://bucket/checkpoints}. Required.
   */
  public static final String CHECKPOINT_DIRECTORY = "state.checkpoint-directory";

  /** Default savepoint target URI. Optional. */
  public static final String SAVEPOINT_DIRECTORY = "state.savepoint-directory";

  /** Incremental RocksDB checkpoints. Default true. */
  public static final String INCREMENTAL = "state.incremental";

  /** Local recovery from a TaskManager-local copy of state. Default false. */
  public static final String LOCAL_RECOVERY = "state.local-recovery";

  /**
   * RocksDB profile: default, spinning-disk-optimized, spinning-disk-optimized-high-mem,
   * flash-ssd-optimized. Default flash-ssd-optimized.
   */
  public static final String ROCKSDB_PREDEFINED_OPTIONS = "state.rocksdb.predefined-options";

  /**
   * Size RocksDB's memory from Flink managed memory (bounded, no surprise OOM kills). Default true.
   */
  public static final String ROCKSDB_MANAGED_MEMORY = "state.rocksdb.managed-memory";

  /**
   * Where timers are kept: {@code rocksdb} (spill to disk like the rest of the state, written
   * incrementally) or {@code heap} (cheaper to register and fire, held in JVM memory and written
   * whole at every checkpoint). Default rocksdb.
   */
  public static final String ROCKSDB_TIMERS = "state.rocksdb.timers";

  static StateConfig read(ConfigReader r) {
    String checkpoints = r.requiredString(CHECKPOINT_DIRECTORY);
    r.check(
        checkpoints == null || checkpoints.contains("://"),
        CHECKPOINT_DIRECTORY,
        "must be a URI such as file:///var/tally/checkpoints or s3://bucket/checkpoints, not "
            + checkpoints);
    String savepoints = r.optionalString(SAVEPOINT_DIRECTORY).orElse(null);
    return new StateConfig(
        checkpoints,
        savepoints,
        r.bool(INCREMENTAL, true),
        r.bool(LOCAL_RECOVERY, false),
        r.enumValue(
            ROCKSDB_PREDEFINED_OPTIONS,
            PredefinedOptions.class,
            PredefinedOptions.FLASH_SSD_OPTIMIZED),
        r.bool(ROCKSDB_MANAGED_MEMORY, true),
        r.enumValue(ROCKSDB_TIMERS, PriorityQueueStateType.class, PriorityQueueStateType.ROCKSDB));
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
  }
}
