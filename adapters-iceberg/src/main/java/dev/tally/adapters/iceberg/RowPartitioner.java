package dev.tally.adapters.iceberg;

import java.io.Serializable;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.transforms.PartitionSpecVisitor;
import org.apache.iceberg.util.BucketUtil;

/**
 * Fills a {@link PartitionKey} from a Flink row, with the values Iceberg's own {@code
 * PartitionKey.partition(RowDataWrapper)} gives, but without {@code java.time} for a {@code day} of
 * a {@code timestamptz} and without a {@code String} for a {@code bucket} of a string.
 *
 * <p>Why: every row to the table is partitioned twice ({@link PartitionChannel} picks its writer,
 * {@link EqualityDeltaWriter} its files), and Iceberg 1.11 computes a timestamp's day through
 * {@code DateTimeUtil.microsToDays}, which builds an {@code OffsetDateTime} and, per call, a fresh
 * {@code ZoneRules} for UTC; its string bucket hashes {@code StringData.toString()}. On the
 * benchmark's 2M-event profile the two places allocated about 380 bytes per event, a third of it
 * {@code ZoneRules} (docs/benchmarks.md, "Allocation per event"). Here a day is a floor division of
 * the row's epoch milliseconds and a bucket the same Murmur3 hash of the string's UTF-8 bytes that
 * Iceberg takes of its characters. A spec with any other transform is partitioned by Iceberg's own
 * code, whole; {@code RowPartitionerTest} checks both paths give Iceberg's values.
 */
final class RowPartitioner implements Serializable {

  private static final long serialVersionUID = 1L;

  private static final long MILLIS_PER_DAY = 86_400_000L;

  private final Schema schema;
  private final RowType rowType;

  /**
   * Per partition field, how it is computed: {@code DAY} or {@code BUCKET} from the row's field
   * {@link #positions}, or null for every field when one of the spec's is neither (then Iceberg's
   * own code partitions the row).
   */
  private final Kind[] kinds;

  private final int[] positions;
  private final int[] buckets;
  private final int[] precisions;

  private transient RowDataWrapper wrapper;

  /** The last day computed and its boxed value: the days of a stream's rows are few and repeat. */
  private transient int lastDay;

  private transient Integer lastDayValue;

  RowPartitioner(PartitionSpec spec, Schema schema, RowType rowType) {
    this.schema = schema;
    this.rowType = rowType;
    List<PartitionField> fields = spec.fields();
    this.positions = new int[fields.size()];
    this.buckets = new int[fields.size()];
    this.precisions = new int[fields.size()];
    Kind[] found = new Kind[fields.size()];
    List<Integer> visited = PartitionSpecVisitor.visit(spec, new Kinds());
    for (int i = 0; i < fields.size(); i++) {
      PartitionField field = fields.get(i);
      String source = schema.findColumnName(field.sourceId());
      int position = rowType.getFieldNames().indexOf(source);
      Integer bucketsOrDay = position < 0 ? null : visited.get(i);
      Kind kind = bucketsOrDay == null ? null : bucketsOrDay == 0 ? Kind.DAY : Kind.BUCKET;
      if (kind == Kind.DAY && !isTimestamp(rowType.getTypeAt(position))) {
        kind = null;
      }
      if (kind == Kind.BUCKET) {
        LogicalTypeRoot root = rowType.getTypeAt(position).getTypeRoot();
        if (root != LogicalTypeRoot.VARCHAR && root != LogicalTypeRoot.CHAR) {
          kind = null;
        } else {
          buckets[i] = bucketsOrDay;
        }
      }
      if (kind == null) {
        found = null;
        break;
      }
      found[i] = kind;
      positions[i] = position;
      if (kind == Kind.DAY) {
        precisions[i] = precisionOf(rowType.getTypeAt(position));
      }
    }
    this.kinds = found;
  }

  /**
   * Per partition field of {@code spec}, its number of buckets, or 0 for a field that is not a
   * bucket.
   */
  static int[] bucketCounts(PartitionSpec spec) {
    return PartitionSpecVisitor.visit(spec, new Kinds()).stream()
        .mapToInt(bucketsOrDay -> bucketsOrDay == null ? 0 : bucketsOrDay)
        .toArray();
  }

  /** Sets {@code key} to the partition of {@code row}. */
  void partition(RowData row, PartitionKey key) {
    if (kinds == null) {
      if (wrapper == null) {
        wrapper = new RowDataWrapper(rowType, schema.asStruct());
      }
      key.partition(wrapper.wrap(row));
      return;
    }
    for (int i = 0; i < kinds.length; i++) {
      int position = positions[i];
      if (row.isNullAt(position)) {
        key.set(i, null);
      } else if (kinds[i] == Kind.DAY) {
        key.set(i, day(row.getTimestamp(position, precisions[i])));
      } else {
        int hash = BucketUtil.hash(row.getString(position).toBytes());
        key.set(i, (hash & Integer.MAX_VALUE) % buckets[i]);
      }
    }
  }

  /**
   * The UTC day of the instant: the floor of its epoch milliseconds by a day's, as Iceberg's {@code
   * day} floors its microseconds (the sub-millisecond nanoseconds never cross a day).
   */
  private Integer day(TimestampData timestamp) {
    int day = (int) Math.floorDiv(timestamp.getMillisecond(), MILLIS_PER_DAY);
    if (lastDayValue == null || lastDay != day) {
      lastDay = day;
      lastDayValue = day;
    }
    return lastDayValue;
  }

  /**
   * Only {@code timestamptz} (Flink {@code TIMESTAMP_LTZ}), whose microseconds Iceberg's row
   * wrapper takes as the floor of the instant's. A zone-less {@code timestamp} goes through {@code
   * LocalDateTime} there, which truncates a negative instant's sub-microsecond part towards the
   * epoch, so one nanosecond before a midnight before 1970 is the next day: left to Iceberg.
   */
  private static boolean isTimestamp(LogicalType type) {
    return type.getTypeRoot() == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE;
  }

  private static int precisionOf(LogicalType type) {
    return ((LocalZonedTimestampType) type).getPrecision();
  }

  private enum Kind {
    DAY,
    BUCKET
  }

  /**
   * Per partition field: 0 for a day, the number of buckets for a bucket, null for Iceberg to
   * compute.
   */
  private static final class Kinds implements PartitionSpecVisitor<Integer> {
    @Override
    public Integer identity(String sourceName, int sourceId) {
      return null;
    }

    @Override
    public Integer bucket(String sourceName, int sourceId, int numBuckets) {
      return numBuckets;
    }

    @Override
    public Integer truncate(String sourceName, int sourceId, int width) {
      return null;
    }

    @Override
    public Integer year(String sourceName, int sourceId) {
      return null;
    }

    @Override
    public Integer month(String sourceName, int sourceId) {
      return null;
    }

    @Override
    public Integer day(String sourceName, int sourceId) {
      return 0;
    }

    @Override
    public Integer hour(String sourceName, int sourceId) {
      return null;
    }

    @Override
    public Integer alwaysNull(int fieldId, String sourceName, int sourceId) {
      return null;
    }

    @Override
    public Integer unknown(int fieldId, String sourceName, int sourceId, String transform) {
      return null;
    }
  }
}
