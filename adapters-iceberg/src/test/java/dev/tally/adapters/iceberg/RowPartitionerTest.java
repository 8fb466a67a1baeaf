package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * {@link RowPartitioner} gives the partition Iceberg's own {@code PartitionKey.partition} gives, on
 * Tally's spec and on specs it leaves to Iceberg, for heap and binary rows, across day boundaries
 * on both sides of the epoch and for strings of more than one byte per character.
 */
class RowPartitionerTest {

  private static final long DAY = 86_400_000L;

  private static final Schema ZONE_LESS =
      new Schema(
          List.of(
              Types.NestedField.required(1, SpendingTable.USER_ID, Types.StringType.get()),
              Types.NestedField.required(2, SpendingTable.CURRENCY, Types.StringType.get()),
              Types.NestedField.required(
                  3, SpendingTable.WINDOW_START, Types.TimestampType.withoutZone()),
              Types.NestedField.required(
                  4, SpendingTable.WINDOW_END, Types.TimestampType.withoutZone()),
              Types.NestedField.required(5, SpendingTable.TOTAL_SPENT_CENTS, Types.LongType.get()),
              Types.NestedField.required(6, SpendingTable.TRANSACTION_COUNT, Types.LongType.get())),
          java.util.Set.of(1, 2, 3));

  @Test
  void tallysSpecGivesIcebergsPartitions() {
    for (int buckets : new int[] {1, 7, 16}) {
      assertSameAsIceberg(
          SpendingTable.SCHEMA, SpendingTable.partitionSpec(SpendingTable.SCHEMA, buckets));
    }
  }

  @Test
  void aZoneLessTimestampIsLeftToIceberg() {
    assertSameAsIceberg(ZONE_LESS, SpendingTable.partitionSpec(ZONE_LESS, 16));
  }

  @Test
  void otherTransformsAreLeftToIceberg() {
    Schema schema = SpendingTable.SCHEMA;
    assertSameAsIceberg(
        schema,
        PartitionSpec.builderFor(schema)
            .hour(SpendingTable.WINDOW_START)
            .identity(SpendingTable.CURRENCY)
            .build());
    assertSameAsIceberg(
        schema,
        PartitionSpec.builderFor(schema)
            .day(SpendingTable.WINDOW_START)
            .truncate(SpendingTable.USER_ID, 3)
            .build());
    assertSameAsIceberg(schema, PartitionSpec.unpartitioned());
  }

  private static void assertSameAsIceberg(Schema schema, PartitionSpec spec) {
    RowType rowType = FlinkSchemaUtil.convert(schema);
    RowPartitioner partitioner = new RowPartitioner(spec, schema, rowType);
    RowDataWrapper wrapper = new RowDataWrapper(rowType, schema.asStruct());
    RowDataSerializer binary = new RowDataSerializer(rowType);
    PartitionKey ours = new PartitionKey(spec, schema);
    PartitionKey iceberg = new PartitionKey(spec, schema);
    for (RowData row : rows()) {
      for (RowData form : List.of(row, binary.toBinaryRow(row).copy())) {
        partitioner.partition(form, ours);
        iceberg.partition(wrapper.wrap(form));
        assertThat(ours).as("partition of %s under %s", row, spec).isEqualTo(iceberg);
        assertThat(ours.toPath()).isEqualTo(iceberg.toPath());
      }
    }
  }

  /** Window starts around midnights before and after the epoch, with sub-millisecond parts. */
  private static List<RowData> rows() {
    Random random = new Random(18);
    List<String> users = List.of("user-1", "user-42", "ü-ß-€", "日本-7", "", "x".repeat(300));
    List<RowData> rows = new ArrayList<>();
    for (long day : new long[] {-20_000, -1, 0, 1, 20_420}) {
      for (long offset : new long[] {-DAY, -1, 0, 1, DAY / 2, DAY - 1}) {
        long millis = day * DAY + offset;
        for (int nanos : new int[] {0, 1, 999_999}) {
          String user = users.get(random.nextInt(users.size())) + random.nextInt(1000);
          rows.add(
              GenericRowData.of(
                  StringData.fromString(user),
                  StringData.fromString("EUR"),
                  TimestampData.fromEpochMillis(millis, nanos),
                  TimestampData.fromEpochMillis(millis + 3_600_000L),
                  random.nextLong(),
                  1L));
        }
      }
    }
    return rows;
  }
}
