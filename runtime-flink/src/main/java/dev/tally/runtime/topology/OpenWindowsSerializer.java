package dev.tally.runtime.topology;

import dev.tally.domain.spending.OpenWindow;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.GenericArraySerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * A user's open windows, the aggregator's per-user value state, written as a whole instead of
 * through Flink's generic array serializer over the reflective record serializer: the length (int),
 * then per window {@code currency} ({@link StringValue} string), {@code windowStart}, {@code
 * totalSpentCents}, {@code transactionCount} (longs) and one byte of flags ({@code emitted} 1,
 * {@code everEmitted} 2). Elements are read back through the record's constructor.
 *
 * <p>An array is mutable, so this is not an immutable type: {@link #copy(OpenWindow[])} returns a
 * new array (holding the same, immutable, elements), as the heap state backend's copy-on-write
 * snapshots require.
 */
public final class OpenWindowsSerializer extends TypeSerializerSingleton<OpenWindow[]> {

  private static final long serialVersionUID = 1L;

  /** The one instance: the serializer has no state. */
  public static final OpenWindowsSerializer INSTANCE = new OpenWindowsSerializer();

  private static final int WINDOW_FIXED_BYTES = 3 * Long.BYTES + 1;
  private static final int EMITTED = 1;
  private static final int EVER_EMITTED = 2;

  private OpenWindowsSerializer() {}

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public OpenWindow[] createInstance() {
    return new OpenWindow[0];
  }

  @Override
  public OpenWindow[] copy(OpenWindow[] from) {
    return from.clone();
  }

  @Override
  public OpenWindow[] copy(OpenWindow[] from, OpenWindow[] reuse) {
    return from.clone();
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(OpenWindow[] windows, DataOutputView out) throws IOException {
    out.writeInt(windows.length);
    for (OpenWindow window : windows) {
      StringValue.writeString(window.currency(), out);
      out.writeLong(window.windowStart());
      out.writeLong(window.totalSpentCents());
      out.writeLong(window.transactionCount());
      out.writeByte((window.emitted() ? EMITTED : 0) | (window.everEmitted() ? EVER_EMITTED : 0));
    }
  }

  @Override
  public OpenWindow[] deserialize(DataInputView in) throws IOException {
    OpenWindow[] windows = new OpenWindow[in.readInt()];
    for (int i = 0; i < windows.length; i++) {
      String currency = StringValue.readString(in);
      long windowStart = in.readLong();
      long totalSpentCents = in.readLong();
      long transactionCount = in.readLong();
      int flags = in.readByte();
      windows[i] =
          new OpenWindow(
              currency,
              windowStart,
              totalSpentCents,
              transactionCount,
              (flags & EMITTED) != 0,
              (flags & EVER_EMITTED) != 0);
    }
    return windows;
  }

  @Override
  public OpenWindow[] deserialize(OpenWindow[] reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    int length = in.readInt();
    out.writeInt(length);
    for (int i = 0; i < length; i++) {
      StringValue.copyString(in, out);
      out.write(in, WINDOW_FIXED_BYTES);
    }
  }

  @Override
  public TypeSerializerSnapshot<OpenWindow[]> snapshotConfiguration() {
    return new OpenWindowsSerializerSnapshot();
  }

  /**
   * Restores this serializer from savepoints; its format has one version. State written before it
   * existed, by Flink's generic array serializer, is migrated: Flink reads it with the serializer
   * restored from that old snapshot and rewrites it in this format. That old snapshot names the
   * element class, so only state written with {@link OpenWindow} under its present name migrates;
   * one naming another class is refused at restore (class not found). This snapshot and the format
   * name no value class: the value type may move freely.
   */
  public static final class OpenWindowsSerializerSnapshot
      extends SimpleTypeSerializerSnapshot<OpenWindow[]> {

    /** Instantiated by Flink, by name, when a savepoint is read. */
    public OpenWindowsSerializerSnapshot() {
      super(() -> INSTANCE);
    }

    @Override
    public TypeSerializerSchemaCompatibility<OpenWindow[]> resolveSchemaCompatibility(
        TypeSerializerSnapshot<OpenWindow[]> oldSnapshot) {
      if (oldSnapshot instanceof GenericArraySerializerSnapshot) {
        return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
      }
      return super.resolveSchemaCompatibility(oldSnapshot);
    }
  }
}
