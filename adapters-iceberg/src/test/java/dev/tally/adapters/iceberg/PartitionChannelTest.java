package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.domain.spending.SpendingAggregate;
import dev.tally.domain.spending.SpendingKey;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.window.EventTimeWindow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;
import org.apache.flink.streaming.runtime.partitioner.KeyGroupStreamPartitioner;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.flink.sink.PartitionKeySelector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link PartitionChannel} against Iceberg's own hash-distribution key (the partition path) on the
 * real table layout, and {@link TallyIcebergSink} built from Iceberg's builder.
 */
class PartitionChannelTest {

  private static final long HOUR = 3_600_000L;
  private static final long START = Instant.parse("2026-11-28T20:00:00Z").toEpochMilli();

  @RegisterExtension final LocalCatalog local = new LocalCatalog();

  private Table table;

  @BeforeEach
  void createTable() {
    table = local.createSpendingTable(16);
  }

  /** Rows as the sink gets them: 300 users, three currencies, 12 hours across midnight. */
  private static List<RowData> rows() {
    List<RowData> rows = new ArrayList<>();
    SpendingRows mapper = new SpendingRows(Long.MIN_VALUE);
    for (int user = 0; user < 300; user++) {
      for (String currency : List.of("EUR", "USD", "GBP")) {
        for (int hour = 0; hour < 12; hour += 1 + user % 3) {
          long start = START + hour * HOUR;
          mapper.flatMap(
              new WindowedSpending(
                  new SpendingKey("user-" + user, currency),
                  new EventTimeWindow(start, start + HOUR),
                  new SpendingAggregate(100L * user + hour, 1 + hour),
                  // Both kinds: an insert, and an update (its before and after image).
                  hour % 2 == 0),
              new ListCollector<>(rows));
        }
      }
    }
    return rows;
  }

  private static final int MAX_PARALLELISM = 128;

  private PartitionChannel channel() {
    return PartitionChannel.forTable(table, MAX_PARALLELISM);
  }

  @Test
  void givesEachPartitionOneKeyAndEachBucketOfADayItsOwn() throws Exception {
    PartitionChannel channel = channel();
    PartitionKeySelector iceberg =
        new PartitionKeySelector(
            table.spec(), table.schema(), FlinkSchemaUtil.convert(table.schema()));
    Map<String, Integer> keyOfPath = new HashMap<>();
    Map<Integer, Set<String>> pathsOfKey = new HashMap<>();
    for (RowData row : rows()) {
      int key = channel.getKey(row);
      String path = iceberg.getKey(row);
      assertThat(keyOfPath.computeIfAbsent(path, p -> key))
          .as("one partition, one key")
          .isEqualTo(key);
      pathsOfKey.computeIfAbsent(key, k -> new HashSet<>()).add(path);
    }
    // Two days, sixteen buckets: 32 partitions, and a key per bucket, shared by its two days.
    assertThat(keyOfPath).hasSize(32);
    assertThat(pathsOfKey).hasSize(16);
    assertThat(pathsOfKey.values())
        .allSatisfy(
            paths ->
                assertThat(paths.stream().map(p -> p.substring(p.indexOf('/'))).distinct())
                    .as("one bucket per key: %s", paths)
                    .hasSize(1));
  }

  /** Which of {@code writers} writer subtasks Flink sends the row to. */
  private static int writerOf(PartitionChannel channel, RowData row, int writers) throws Exception {
    return KeyGroupRangeAssignment.assignKeyToParallelOperator(
        channel.getKey(row), MAX_PARALLELISM, writers);
  }

  @Test
  void spreadsTheBucketsEvenlyOverTheWriters() throws Exception {
    PartitionChannel channel = channel();
    PartitionKeySelector iceberg =
        new PartitionKeySelector(
            table.spec(), table.schema(), FlinkSchemaUtil.convert(table.schema()));
    // Writers -> how many of the 16 buckets each gets, at 2, 3 and 4 writers.
    Map<Integer, List<Integer>> expected =
        Map.of(2, List.of(8, 8), 3, List.of(5, 6, 5), 4, List.of(4, 4, 4, 4));
    expected.forEach(
        (writers, bucketsPerWriter) -> {
          Map<Integer, Set<String>> bucketsOf = new HashMap<>();
          for (RowData row : rows()) {
            try {
              String path = iceberg.getKey(row);
              bucketsOf
                  .computeIfAbsent(writerOf(channel, row, writers), w -> new HashSet<>())
                  .add(path.substring(path.indexOf('/')));
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          }
          List<Integer> counts = new ArrayList<>();
          for (int writer = 0; writer < writers; writer++) {
            counts.add(bucketsOf.getOrDefault(writer, Set.of()).size());
          }
          assertThat(counts).as("buckets per writer of %d", writers).isEqualTo(bucketsPerWriter);
        });
  }

  @Test
  void keepsEveryVersionOfARowKeyOnOneKey() throws Exception {
    PartitionChannel channel = channel();
    Map<String, Set<Integer>> keysOfRowKey = new HashMap<>();
    for (RowData row : rows()) {
      String rowKey =
          row.getString(0) + "/" + row.getString(1) + "/" + row.getTimestamp(2, 6).getMillisecond();
      keysOfRowKey.computeIfAbsent(rowKey, k -> new HashSet<>()).add(channel.getKey(row));
    }
    assertThat(keysOfRowKey).allSatisfy((rowKey, keys) -> assertThat(keys).hasSize(1));
  }

  @Test
  void refusesASpecWhosePartitionSourceIsNotAnIdentifierField() {
    PartitionSpec byCount =
        PartitionSpec.builderFor(SpendingTable.SCHEMA).bucket("transaction_count", 4).build();
    assertThatThrownBy(
            () ->
                new PartitionChannel(
                    byCount,
                    SpendingTable.SCHEMA,
                    FlinkSchemaUtil.convert(SpendingTable.SCHEMA),
                    MAX_PARALLELISM))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("transaction_count")
        .hasMessageContaining("not an identifier field");
  }

  @Test
  void wrapsIcebergsSinkAndKeysItsInputByPartition() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    DataStream<RowData> input = env.fromData(rows().subList(0, 1), SpendingTable.rowTypeInfo());
    IcebergSink.Builder builder =
        IcebergSink.forRowData(input)
            .tableLoader(TableLoader.fromHadoopTable(table.location()))
            .upsert(false)
            .equalityFieldColumns(SpendingTable.IDENTIFIER_FIELDS);

    TallyIcebergSink<?, ?> sink =
        TallyIcebergSink.wrap(
            builder, channel(), TableLoader.fromHadoopTable(table.location()), null);

    assertThat(sink.getCommittableSerializer()).isNotNull();
    assertThat(sink.getWriteResultSerializer()).isNotNull();
    DataStream<RowData> distributed = sink.addPreWriteTopology(input);
    assertThat(distributed.getTransformation()).isInstanceOf(PartitionTransformation.class);
    assertThat(
            ((PartitionTransformation<RowData>) distributed.getTransformation()).getPartitioner())
        .isInstanceOf(KeyGroupStreamPartitioner.class);
  }
}
