package dev.tally.runtime.config;

import java.util.Collection;
import org.apache.flink.state.rocksdb.RocksDBOptionsFactory;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * Gives RocksDB {@value #FLUSHES} memtable flush threads instead of 1. The RocksDB instances of one
 * TaskManager share one flush thread pool, sized by the largest flush count any of them asks for:
 * from {@code max_background_jobs} 4 (Flink's {@code FLASH_SSD_OPTIMIZED}) RocksDB derives 1 flush.
 * A checkpoint's synchronous phase flushes every column family's memtable and waits for it (the
 * native checkpoint, with the write-ahead log off), so with one thread each subtask's barrier
 * waited for the other subtask's flushes as well as its own: on the anomaly-latency bench the two
 * aggregator subtasks' barrier flushes ran strictly one after the other, each subtask's sync phase
 * about twice its own flushing, while their task threads, blocked, left the cores idle
 * (docs/benchmarks.md "Anomalies"). Compactions keep the 3 threads they had.
 */
public final class FlushThreads implements RocksDBOptionsFactory {

  private static final long serialVersionUID = 1L;

  /** Flush threads: one per subtask of a TaskManager of 2 slots (deploy/). */
  static final int FLUSHES = 2;

  /** What {@code max_background_jobs} 4 gave compactions before: 4 − 1 flush. */
  static final int COMPACTIONS = 3;

  @Override
  @SuppressWarnings("deprecation") // the explicit split is what sizes the shared flush pool
  public DBOptions createDBOptions(DBOptions current, Collection<AutoCloseable> handlesToClose) {
    return current.setMaxBackgroundFlushes(FLUSHES).setMaxBackgroundCompactions(COMPACTIONS);
  }

  @Override
  public ColumnFamilyOptions createColumnOptions(
      ColumnFamilyOptions current, Collection<AutoCloseable> handlesToClose) {
    return current;
  }
}
