package dev.tally.adapters.iceberg;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Types;

/**
 * The anomaly table of docs/behaviour.md "Anomalies": schema, key and partitioning in one place,
 * for creating, checking and writing it. Every row is an insert: an anomaly is decided once, so the
 * identifier {@code user_id, transaction_id} is a key the rows never repeat, not an upsert key.
 * {@code event_timestamp} is {@code timestamptz} for the reasons {@link SpendingTable} gives; mean
 * and standard deviation are exact decimals to four places, the score a double.
 */
final class AnomalyTable {

  static final String TRANSACTION_ID = "transaction_id";
  static final String USER_ID = "user_id";
  static final String EVENT_TIMESTAMP = "event_timestamp";

  /** The identifier fields, in the order the sink is given them. */
  static final List<String> IDENTIFIER_FIELDS = List.of(USER_ID, TRANSACTION_ID);

  /** The schema new tables get; an existing table must match it column by column. */
  static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, TRANSACTION_ID, Types.StringType.get()),
              Types.NestedField.required(2, USER_ID, Types.StringType.get()),
              Types.NestedField.required(3, "currency", Types.StringType.get()),
              Types.NestedField.required(4, EVENT_TIMESTAMP, Types.TimestampType.withZone()),
              Types.NestedField.required(5, "amount_cents", Types.LongType.get()),
              Types.NestedField.required(6, "baseline_count", Types.LongType.get()),
              Types.NestedField.required(7, "baseline_mean_cents", Types.DecimalType.of(38, 4)),
              Types.NestedField.required(8, "baseline_stddev_cents", Types.DecimalType.of(38, 4)),
              Types.NestedField.optional(9, "score", Types.DoubleType.get())),
          Set.of(1, 2));

  /** {@code day(event_timestamp)}. */
  static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).day(EVENT_TIMESTAMP).build();

  /** The Flink row type the sink writes. */
  static final RowType ROW_TYPE = FlinkSchemaUtil.convert(SCHEMA);

  private AnomalyTable() {}

  /** Flink's own serializer for the rows between the mapper and the writers: no Kryo. */
  static InternalTypeInfo<RowData> rowTypeInfo() {
    return InternalTypeInfo.of(ROW_TYPE);
  }

  /** Properties a new table is created with. */
  static Map<String, String> tableProperties() {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(TableProperties.FORMAT_VERSION, "2");
    properties.put(TableProperties.DEFAULT_FILE_FORMAT, "parquet");
    properties.put(TableProperties.PARQUET_COMPRESSION, "zstd");
    properties.putAll(SpendingTable.METADATA_CLEANUP);
    return properties;
  }
}
