package dev.tally.runtime.topology;

import dev.tally.domain.spending.SeenIds;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * A user's dedupe memory ({@link SeenIds}) as one state value: the entry count (int), a flag byte
 * (bit 0: full ids follow), then per entry, in order of addition, the fingerprint, event time and
 * amount (longs) and the packed currency (int), and with the flag a presence byte and the id
 * ({@link StringValue} string). 28 bytes an id without full ids.
 *
 * <p>Not immutable: the aggregator adds and forgets ids in place, so {@link #copy} is deep.
 */
public final class SeenIdsSerializer extends TypeSerializerSingleton<SeenIds> {

  private static final long serialVersionUID = 1L;

  /** The one instance: the serializer has no state. */
  public static final SeenIdsSerializer INSTANCE = new SeenIdsSerializer();

  private static final int FULL_IDS = 1;

  private SeenIdsSerializer() {}

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public SeenIds createInstance() {
    return SeenIds.empty();
  }

  @Override
  public SeenIds copy(SeenIds from) {
    return from.copy();
  }

  @Override
  public SeenIds copy(SeenIds from, SeenIds reuse) {
    return from.copy();
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(SeenIds ids, DataOutputView out) throws IOException {
    int size = ids.size();
    boolean fullIds = ids.keepsIds();
    out.writeInt(size);
    out.writeByte(fullIds ? FULL_IDS : 0);
    for (int i = 0; i < size; i++) {
      out.writeLong(ids.fingerprintAt(i));
      out.writeLong(ids.eventTimeAt(i));
      out.writeLong(ids.amountAt(i));
      out.writeInt(ids.currencyAt(i));
      if (fullIds) {
        String id = ids.idAt(i);
        out.writeBoolean(id != null);
        if (id != null) {
          StringValue.writeString(id, out);
        }
      }
    }
  }

  @Override
  public SeenIds deserialize(DataInputView in) throws IOException {
    int size = in.readInt();
    boolean fullIds = (in.readByte() & FULL_IDS) != 0;
    SeenIds ids = SeenIds.withCapacity(size);
    for (int i = 0; i < size; i++) {
      long fingerprint = in.readLong();
      long eventTime = in.readLong();
      long amount = in.readLong();
      int currency = in.readInt();
      String id = fullIds && in.readBoolean() ? StringValue.readString(in) : null;
      ids.append(fingerprint, eventTime, amount, currency, id);
    }
    return ids;
  }

  @Override
  public SeenIds deserialize(SeenIds reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    serialize(deserialize(in), out);
  }

  @Override
  public TypeSerializerSnapshot<SeenIds> snapshotConfiguration() {
    return new SeenIdsSerializerSnapshot();
  }

  /** Restores this serializer from savepoints; its format has one version. */
  public static final class SeenIdsSerializerSnapshot
      extends SimpleTypeSerializerSnapshot<SeenIds> {

    /** Instantiated by Flink, by name, when a savepoint is read. */
    public SeenIdsSerializerSnapshot() {
      super(() -> INSTANCE);
    }
  }
}
