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
      long delta = hour - previous;
      long zigZag = (delta << 1) ^ (delta >> 63);
      while ((zigZag & ~0x7FL) != 0) {
        out.writeByte((int) ((zigZag & 0x7F) | 0x80));
        zigZag >>>= 7;
      }
      out.writeByte((int) zigZag);
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
      long zigZag = 0;
      int shift = 0;
      int b;
      do {
        b = in.readUnsignedByte();
        zigZag |= (long) (b & 0x7F) << shift;
        shift += 7;
      } while ((b & 0x80) != 0);
      previous += (zigZag >>> 1) ^ -(zigZag & 1);
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
