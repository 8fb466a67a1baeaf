package dev.tally.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import org.junit.jupiter.api.Test;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/**
 * The options Flink's RocksDB backend ends with under {@link FlushThreads}: two flush threads, so
 * that the two subtasks of a TaskManager flush their memtables at a checkpoint barrier side by
 * side, not one after the other; compactions as many as before.
 */
class FlushThreadsTest {

  @Test
  @SuppressWarnings("deprecation")
  void givesEachOfTwoSubtasksAFlushThreadAndCompactionsTheirThree() {
    RocksDB.loadLibrary();
    // Flink's FLASH_SSD_OPTIMIZED profile: 4 background jobs, of which RocksDB derives 1 flush.
    try (DBOptions flink = new DBOptions().setMaxBackgroundJobs(4)) {
      DBOptions options = new FlushThreads().createDBOptions(flink, new ArrayList<>());
      assertThat(options.maxBackgroundFlushes()).isEqualTo(2);
      assertThat(options.maxBackgroundCompactions()).isEqualTo(3);
    }
  }
}
