package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.Baseline;
import dev.tally.domain.anomaly.BaselineHead;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The head of an anomaly baseline: the cursor hour and the count (longs), the sum and sum of
 * squares ({@link ImmutableValueSerializer#writeBigInteger}), then the number of bucket hours (int)
 * and the hours as differences from the one before (the first from the cursor), each a zig-zag
 * variable-length long: neighbouring hours cost a byte each.
 *
 * <p>Retired: anomaly state of release {@code b970f33} and before was kept in map and list states
 * of this value; this build keeps one value per user ({@link UserBaselinesSerializer}) and refuses
 * such state with anomalies on ({@link AnomalyWatch#refuseRetiredLayout}). Kept because Flink must
 * find the serializer a savepoint names to restore it at all, even to refuse it, or to ignore it
 * with anomalies off.
 */
public final class BaselineHeadSerializer extends ImmutableValueSerializer<BaselineHead> {

  private static final long serialVersionUID = 1L;

  /** The one instance: the serializer has no state. */
  public static final BaselineHeadSerializer INSTANCE = new BaselineHeadSerializer();

  private BaselineHeadSerializer() {}

  @Override
  public void serialize(BaselineHead head, DataOutputView out) throws IOException {
    out.writeLong(head.cursor());
    out.writeLong(head.totals().count());
    writeBigInteger(head.totals().sum(), out);
    writeBigInteger(head.totals().sumOfSquares(), out);
    long[] hours = head.hours();
    out.writeInt(hours.length);
    long previous = head.cursor();
    for (long hour : hours) {
      VarInts.writeSigned(hour - previous, out);
      previous = hour;
    }
  }

  @Override
  public BaselineHead deserialize(DataInputView in) throws IOException {
    long cursor = in.readLong();
    Baseline totals = new Baseline(in.readLong(), readBigInteger(in), readBigInteger(in));
    long[] hours = new long[in.readInt()];
    long previous = cursor;
    for (int i = 0; i < hours.length; i++) {
      previous += VarInts.readSigned(in);
      hours[i] = previous;
    }
    return new BaselineHead(cursor, totals, hours);
  }

  @Override
  public TypeSerializerSnapshot<BaselineHead> snapshotConfiguration() {
    return new BaselineHeadSerializerSnapshot();
  }

  /** Restores this serializer from savepoints; its format has one version. */
  public static final class BaselineHeadSerializerSnapshot
      extends SimpleTypeSerializerSnapshot<BaselineHead> {

    /** Instantiated by Flink, by name, when a savepoint is read. */
    public BaselineHeadSerializerSnapshot() {
      super(() -> INSTANCE);
    }
  }
}
