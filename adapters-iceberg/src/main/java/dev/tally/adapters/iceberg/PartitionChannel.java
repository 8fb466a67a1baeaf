package dev.tally.adapters.iceberg;

import java.util.Arrays;
import java.util.BitSet;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;

/**
 * Picks the Iceberg writer of a row by its partition, as Iceberg's hash distribution does, but from
 * the partition's values rather than its path, and spreading a spec's buckets evenly over the
 * writers.
 *
 * <p>Why the values: Iceberg's {@code PartitionKeySelector} keys every row by {@code
 * PartitionKey.toPath()}, which formats the day with {@code String.format} and URL-encodes each
 * part, once in the upstream task to pick the channel and once more in the writer, which is a keyed
 * operator and sets its key per row: about a quarter of the job's Java samples (JFR) on the
 * benchmark, and the difference between keeping up with 20,000 events/s live and falling behind
 * (docs/benchmarks-history.md). Here the partition tuple is computed with the table's own
 * transforms' values (a day number and a bucket number for Tally's spec), at the cost of two small
 * integer computations per row, in both places ({@link RowPartitioner}).
 *
 * <p>Why the spread: Flink sends a key to the writer owning its key group, {@code murmur(key) %
 * maxParallelism}, and each writer owns a contiguous range of key groups. Keyed by the hash of the
 * partition tuple, 16 buckets land on the key groups by chance: on the benchmark one of two writers
 * got most of the rows, so it alone held back the aggregator's output to both while the other idled
 * (docs/benchmarks.md, "Backpressure"). When the spec has bucket fields, the key is instead chosen
 * by the bucket numbers alone: bucket {@code i} of {@code n} takes a key of the key group in the
 * middle of the {@code i}-th of {@code n} equal slices of the key groups, so at any writer
 * parallelism each writer owns the buckets of its share of the range (8 and 8 of 16 for two
 * writers; 5, 6 and 5 for three), and a bucket's partitions of every day go to one writer. Without
 * a bucket field the key is the hash of the partition tuple. The even split relies on the writers'
 * max parallelism being the one given; any other only unbalances the split, never the guarantees
 * below.
 *
 * <p>What the writers rely on holds as with Iceberg's own shuffle: a row's partition is a function
 * of its identifier fields (the table's partition sources are among them, checked when the sink is
 * built), and its key a function of its partition, so every version of a key goes to the same
 * writer, in the order its aggregator subtask emitted them; and each partition has one writer, so a
 * checkpoint writes one file per live partition.
 */
final class PartitionChannel implements KeySelector<RowData, Integer> {

  private static final long serialVersionUID = 1L;

  private final PartitionSpec spec;
  private final Schema schema;

  /** Per partition field, its number of buckets, or 0 for a field that is not a bucket. */
  private final int[] buckets;

  /** The product of {@link #buckets}' non-zero entries, 0 without a bucket field. */
  private final int bucketCount;

  private final int maxParallelism;

  private final RowPartitioner partitioner;

  private transient PartitionKey partitionKey;
  private transient int[] keyOfBucket;

  /**
   * @param maxParallelism the writers' number of key groups, which the buckets are spread over
   * @throws IllegalArgumentException when a partition field's source is not an identifier field:
   *     then versions of one key could land in different partitions, hence on different writers
   */
  PartitionChannel(PartitionSpec spec, Schema schema, RowType rowType, int maxParallelism) {
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
    if (maxParallelism < 1) {
      throw new IllegalArgumentException("max parallelism must be positive: " + maxParallelism);
    }
    this.spec = spec;
    this.schema = schema;
    this.partitioner = new RowPartitioner(spec, schema, rowType);
    this.maxParallelism = maxParallelism;
    this.buckets = RowPartitioner.bucketCounts(spec);
    long count = 0;
    for (int n : buckets) {
      if (n > 0) {
        count = count == 0 ? n : count * n;
      }
    }
    if (count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("too many buckets to spread: " + count);
    }
    this.bucketCount = (int) count;
  }

  /**
   * The channel of the table's current spec, for rows of its schema as Flink's Iceberg sink takes,
   * spread over {@code maxParallelism} key groups.
   */
  static PartitionChannel forTable(Table table, int maxParallelism) {
    return new PartitionChannel(
        table.spec(), table.schema(), FlinkSchemaUtil.convert(table.schema()), maxParallelism);
  }

  /**
   * The key of the row's partition: equal partitions, equal keys, in every JVM; with bucket fields,
   * a key of the key group assigned to the partition's buckets.
   */
  @Override
  public Integer getKey(RowData row) {
    if (partitionKey == null) {
      partitionKey = new PartitionKey(spec, schema);
    }
    partitioner.partition(row, partitionKey);
    if (bucketCount == 0) {
      return partitionKey.hashCode();
    }
    int ordinal = 0;
    for (int field = 0; field < buckets.length; field++) {
      if (buckets[field] > 0) {
        ordinal = ordinal * buckets[field] + partitionKey.get(field, Integer.class);
      }
    }
    return keyOfBucket()[ordinal];
  }

  /** The key group the {@code ordinal}-th of the spec's buckets is sent to. */
  int keyGroupOf(int ordinal) {
    // The middle of the ordinal-th of bucketCount equal slices of [0, maxParallelism).
    return (int) ((2L * ordinal + 1) * maxParallelism / (2L * bucketCount));
  }

  private int[] keyOfBucket() {
    if (keyOfBucket == null) {
      BitSet wanted = new BitSet(maxParallelism);
      for (int i = 0; i < bucketCount; i++) {
        wanted.set(keyGroupOf(i));
      }
      // The smallest non-negative key of each wanted key group: each try hits a group at random,
      // so 128 key groups take some hundreds of tries, once per task.
      int[] keyOfGroup = new int[maxParallelism];
      Arrays.fill(keyOfGroup, -1);
      for (int key = 0, missing = wanted.cardinality(); missing > 0; key++) {
        int group = KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism);
        if (wanted.get(group) && keyOfGroup[group] < 0) {
          keyOfGroup[group] = key;
          missing--;
        }
      }
      int[] keys = new int[bucketCount];
      for (int i = 0; i < bucketCount; i++) {
        keys[i] = keyOfGroup[keyGroupOf(i)];
      }
      keyOfBucket = keys;
    }
    return keyOfBucket;
  }
}
