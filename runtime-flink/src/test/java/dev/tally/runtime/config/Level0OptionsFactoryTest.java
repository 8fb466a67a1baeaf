package dev.tally.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.adapters.iceberg.CatalogConfig;
import dev.tally.adapters.kafka.KafkaSourceConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code state.rocksdb.level0-compaction-trigger} reaches a real RocksDB: the backend Flink builds
 * from the options {@link StateConfig#applyTo} writes opens its column families with the trigger,
 * as RocksDB itself records them in the database's {@code OPTIONS} file.
 */
class Level0OptionsFactoryTest {

  @TempDir Path dir;

  @Test
  void everyColumnFamilyOfTheBackendGetsTheTriggerAndItsSlowdownAndStop() throws Exception {
    Configuration flink = new Configuration();
    TallyConfig.read(
            ConfigSource.of(
                Map.of(
                    KafkaSourceConfig.BOOTSTRAP_SERVERS.name(), "127.0.0.1:9092",
                    StateConfig.CHECKPOINT_DIRECTORY.name(), "file:///var/tally/checkpoints",
                    CatalogConfig.WAREHOUSE.name(), "file:///var/tally/warehouse",
                    StateConfig.ROCKSDB_LEVEL0_COMPACTION_TRIGGER.name(), "13")))
        .state()
        .applyTo(flink);
    EmbeddedRocksDBStateBackend backend =
        new EmbeddedRocksDBStateBackend().configure(flink, getClass().getClassLoader());
    backend.setDbStoragePath(dir.toString());

    KeyedOneInputStreamOperatorTestHarness<String, String, String> harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new KeyedProcessOperator<>(new Ignore()), in -> in, Types.STRING);
    try {
      harness.setStateBackend(backend);
      harness.open();
      harness.getOperator().setCurrentKey("u1");
      ValueState<String> probe =
          harness
              .getOperator()
              .getKeyedStateBackend()
              .getPartitionedState(
                  VoidNamespace.INSTANCE,
                  VoidNamespaceSerializer.INSTANCE,
                  new ValueStateDescriptor<>("probe", Types.STRING));
      probe.update("written");

      Map<String, Map<String, String>> families = columnFamilies(latestOptionsFile());
      assertThat(families).containsKeys("default", "probe");
      Map<String, String> expected =
          Map.of(
              "level0_file_num_compaction_trigger", "13",
              "level0_slowdown_writes_trigger", "29",
              "level0_stop_writes_trigger", "45",
              // Flink's own options stay: the 4 MiB memtables.
              "write_buffer_size", String.valueOf(4 * 1024 * 1024));
      families.forEach(
          (family, options) -> {
            Map<String, String> triggers = new HashMap<>(options);
            triggers.keySet().retainAll(expected.keySet());
            assertThat(triggers).as("column family %s", family).isEqualTo(expected);
          });
    } finally {
      harness.close();
    }
  }

  private Path latestOptionsFile() throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      List<Path> options =
          files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-")).sorted().toList();
      assertThat(options).as("RocksDB's OPTIONS files under %s", dir).isNotEmpty();
      return options.get(options.size() - 1);
    }
  }

  /** The {@code [CFOptions "name"]} sections of a RocksDB OPTIONS file, key by key. */
  private static Map<String, Map<String, String>> columnFamilies(Path file) throws Exception {
    Map<String, Map<String, String>> families = new LinkedHashMap<>();
    Pattern section = Pattern.compile("^\\[(\\w+) \"(.*)\"\\]$");
    Map<String, String> current = null;
    for (String line : Files.readAllLines(file)) {
      String trimmed = line.trim();
      Matcher header = section.matcher(trimmed);
      if (header.matches()) {
        current = null;
        if (header.group(1).equals("CFOptions")) {
          current = new HashMap<>();
          families.put(header.group(2), current);
        }
      } else if (trimmed.startsWith("[")) {
        current = null;
      } else if (current != null && trimmed.contains("=")) {
        int eq = trimmed.indexOf('=');
        current.put(trimmed.substring(0, eq), trimmed.substring(eq + 1));
      }
    }
    return families;
  }

  private static final class Ignore extends KeyedProcessFunction<String, String, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(String value, Context ctx, Collector<String> out) {}
  }
}
