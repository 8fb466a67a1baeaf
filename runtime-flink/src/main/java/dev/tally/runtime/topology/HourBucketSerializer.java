package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.HourBucket;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * One hourly bucket of an anomaly baseline: its count (long), then its sum and sum of squares
 * ({@link ImmutableValueSerializer#writeBigInteger}). The hour is the state's map key.
 *
 * <p>Retired: anomaly state of release {@code b970f33} and before was kept in map and list states
 * of this value; this build keeps one value per user ({@link UserBaselinesSerializer}) and refuses
 * such state with anomalies on ({@link AnomalyWatch#refuseRetiredLayout}). Kept because Flink must
 * find the serializer a savepoint names to restore it at all, even to refuse it, or to ignore it
 * with anomalies off.
 */
public final class HourBucketSerializer extends ImmutableValueSerializer<HourBucket> {

  private static final long serialVersionUID = 1L;

  /** The one instance: the serializer has no state. */
  public static final HourBucketSerializer INSTANCE = new HourBucketSerializer();

  private HourBucketSerializer() {}

  @Override
  public void serialize(HourBucket bucket, DataOutputView out) throws IOException {
    out.writeLong(bucket.count());
    writeBigInteger(bucket.sum(), out);
    writeBigInteger(bucket.sumOfSquares(), out);
  }

  @Override
  public HourBucket deserialize(DataInputView in) throws IOException {
    return new HourBucket(in.readLong(), readBigInteger(in), readBigInteger(in));
  }

  @Override
  public TypeSerializerSnapshot<HourBucket> snapshotConfiguration() {
    return new HourBucketSerializerSnapshot();
  }

  /** Restores this serializer from savepoints; its format has one version. */
  public static final class HourBucketSerializerSnapshot
      extends SimpleTypeSerializerSnapshot<HourBucket> {

    /** Instantiated by Flink, by name, when a savepoint is read. */
    public HourBucketSerializerSnapshot() {
      super(() -> INSTANCE);
    }
  }
}
