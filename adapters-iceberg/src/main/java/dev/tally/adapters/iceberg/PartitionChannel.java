package dev.tally.adapters.iceberg;

import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.RowDataWrapper;

/**
 * Picks the Iceberg writer of a row by its partition, as Iceberg's hash distribution does, but from
 * the partition's values rather than its path.
 *
 * <p>Why: Iceberg's {@code PartitionKeySelector} keys every row by {@code PartitionKey.toPath()},
 * which formats the day with {@code String.format} and URL-encodes each part, once in the upstream
 * task to pick the channel and once more in the writer, which is a keyed operator and sets its key
 * per row: about a quarter of the job's Java samples (JFR) on the benchmark, and the difference
 * between keeping up with 20,000 events/s live and falling behind (docs/benchmarks-history.md).
 * Here the partition tuple is computed with the table's own transforms (a day number and a bucket
 * number for Tally's spec) and its hash is the key: the same partition-to-writer routing, at the
 * cost of two small integer transforms per row, in both places.
 *
 * <p>What the writers rely on holds as with Iceberg's own shuffle: a row's partition is a function
 * of its identifier fields (the table's partition sources are among them, checked when the sink is
 * built), so every version of a key goes to the same writer, in the order its aggregator subtask
 * emitted them; and each partition has one writer, so a checkpoint writes one file per live
 * partition.
 */
final class PartitionChannel implements KeySelector<RowData, Integer> {

  private static final long serialVersionUID = 1L;

  private final PartitionSpec spec;
  private final Schema schema;
  private final RowType rowType;

  private transient PartitionKey partitionKey;
  private transient RowDataWrapper wrapper;

  /**
   * @throws IllegalArgumentException when a partition field's source is not an identifier field:
   *     then versions of one key could land in different partitions, hence on different writers
   */
  PartitionChannel(PartitionSpec spec, Schema schema, RowType rowType) {
    for (PartitionField field : spec.fields()) {
      if (!schema.identifierFieldIds().contains(field.sourceId())) {
        throw new IllegalArgumentException(
            "partition field "
                + field.name()
                + " is computed from "
                + schema.findColumnName(field.sourceId())
                + ", which is not an identifier field "
                + schema.identifierFieldNames()
                + ": rows of one key could go to two writers");
      }
    }
    this.spec = spec;
    this.schema = schema;
    this.rowType = rowType;
  }

  /**
   * The channel of the table's current spec, for rows of its schema as Flink's Iceberg sink takes.
   */
  static PartitionChannel forTable(Table table) {
    return new PartitionChannel(
        table.spec(), table.schema(), FlinkSchemaUtil.convert(table.schema()));
  }

  /** The hash of the row's partition tuple: equal partitions, equal keys, in every JVM. */
  @Override
  public Integer getKey(RowData row) {
    if (partitionKey == null) {
      partitionKey = new PartitionKey(spec, schema);
      wrapper = new RowDataWrapper(rowType, schema.asStruct());
    }
    partitionKey.partition(wrapper.wrap(row));
    return partitionKey.hashCode();
  }
}
