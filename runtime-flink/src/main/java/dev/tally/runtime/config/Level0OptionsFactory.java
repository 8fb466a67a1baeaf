package dev.tally.runtime.config;

import java.util.Collection;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.state.rocksdb.ConfigurableRocksDBOptionsFactory;
import org.apache.flink.state.rocksdb.RocksDBOptionsFactory;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * Sets RocksDB's level-0 triggers, for which Flink has no key, on every column family. Flink
 * instantiates it by name ({@code state.backend.rocksdb.options-factory}) in each TaskManager and
 * configures it from the job's options, where {@link StateConfig#applyTo} put {@link
 * StateConfig#ROCKSDB_LEVEL0_COMPACTION_TRIGGER}; it runs after Flink's predefined and configurable
 * options, so it changes nothing else.
 */
public final class Level0OptionsFactory implements ConfigurableRocksDBOptionsFactory {

  private static final long serialVersionUID = 1L;

  /** RocksDB's own distances from the compaction trigger (4) to the slowdown (20) and stop (36). */
  private static final int SLOWDOWN_ABOVE_TRIGGER = 16;

  private static final int STOP_ABOVE_TRIGGER = 32;

  /**
   * Carries {@link StateConfig#ROCKSDB_LEVEL0_COMPACTION_TRIGGER} to the TaskManagers; the key is
   * Tally's own, under Tally's prefix, so that no Flink option is shadowed.
   */
  static final ConfigOption<Integer> COMPACTION_TRIGGER =
      ConfigOptions.key("tally." + StateConfig.ROCKSDB_LEVEL0_COMPACTION_TRIGGER.name())
          .intType()
          .defaultValue(StateConfig.ROCKSDB_LEVEL0_COMPACTION_TRIGGER.defaultValue())
          .withDescription("See Tally's state.rocksdb.level0-compaction-trigger.");

  private int trigger = COMPACTION_TRIGGER.defaultValue();

  @Override
  public RocksDBOptionsFactory configure(ReadableConfig configuration) {
    trigger = configuration.get(COMPACTION_TRIGGER);
    return this;
  }

  @Override
  public DBOptions createDBOptions(DBOptions current, Collection<AutoCloseable> handlesToClose) {
    return current;
  }

  @Override
  public ColumnFamilyOptions createColumnOptions(
      ColumnFamilyOptions current, Collection<AutoCloseable> handlesToClose) {
    return current
        .setLevel0FileNumCompactionTrigger(trigger)
        .setLevel0SlowdownWritesTrigger(trigger + SLOWDOWN_ABOVE_TRIGGER)
        .setLevel0StopWritesTrigger(trigger + STOP_ABOVE_TRIGGER);
  }
}
