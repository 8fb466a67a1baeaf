package dev.tally.runtime.topology;

import dev.tally.domain.spending.SeenTransaction;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * The dedupe state's value, written field by field instead of through Flink's reflective record
 * serializer: {@code amountCents} (long), {@code currency} ({@link StringValue} string), {@code
 * eventTimeMillis} (long). Read back through the record's constructor.
 */
public final class SeenTransactionSerializer extends TypeSerializerSingleton<SeenTransaction> {

  private static final long serialVersionUID = 1L;

  /** The one instance: the serializer has no state. */
  public static final SeenTransactionSerializer INSTANCE = new SeenTransactionSerializer();

  private static final SeenTransaction PLACEHOLDER = new SeenTransaction(0, "XXX", 0);

  private SeenTransactionSerializer() {}

  @Override
  public boolean isImmutableType() {
    return true;
  }

  @Override
  public SeenTransaction createInstance() {
    return PLACEHOLDER;
  }

  @Override
  public SeenTransaction copy(SeenTransaction from) {
    return from;
  }

  @Override
  public SeenTransaction copy(SeenTransaction from, SeenTransaction reuse) {
    return from;
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(SeenTransaction record, DataOutputView out) throws IOException {
    out.writeLong(record.amountCents());
    StringValue.writeString(record.currency(), out);
    out.writeLong(record.eventTimeMillis());
  }

  @Override
  public SeenTransaction deserialize(DataInputView in) throws IOException {
    long amountCents = in.readLong();
    String currency = StringValue.readString(in);
    return new SeenTransaction(amountCents, currency, in.readLong());
  }

  @Override
  public SeenTransaction deserialize(SeenTransaction reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    out.write(in, Long.BYTES);
    StringValue.copyString(in, out);
    out.write(in, Long.BYTES);
  }

  @Override
  public TypeSerializerSnapshot<SeenTransaction> snapshotConfiguration() {
    return new SeenTransactionSerializerSnapshot();
  }

  /**
   * Restores this serializer from savepoints; its format has one version. State written before it
   * existed, by Flink's reflective record serializer, is migrated: Flink reads it with the
   * serializer restored from that old snapshot and rewrites it in this format. That old snapshot
   * names the record class, so only state written with {@link SeenTransaction} under its present
   * name migrates; one naming another class is refused at restore (class not found). This snapshot
   * and the format name no value class: the value type may move freely.
   */
  public static final class SeenTransactionSerializerSnapshot
      extends SimpleTypeSerializerSnapshot<SeenTransaction> {

    /** Instantiated by Flink, by name, when a savepoint is read. */
    public SeenTransactionSerializerSnapshot() {
      super(() -> INSTANCE);
    }

    @Override
    public TypeSerializerSchemaCompatibility<SeenTransaction> resolveSchemaCompatibility(
        TypeSerializerSnapshot<SeenTransaction> oldSnapshot) {
      if (oldSnapshot instanceof PojoSerializerSnapshot) {
        return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
      }
      return super.resolveSchemaCompatibility(oldSnapshot);
    }
  }
}
