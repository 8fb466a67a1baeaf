package dev.tally.ports.types;

import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import java.io.IOException;
import java.time.Instant;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Writes a {@link SourcedTransaction} field by field, without reflection:
 *
 * <pre>
 * transactionId, userId (string) | amountCents (long) | currency (string) | eventTime (epoch ms)
 * topic (string) | partition (int) | offset (long) | timestampMillis (long)
 * key, value (int length, -1 for null, then the raw bytes)
 * </pre>
 *
 * <p>Strings use {@link StringValue}'s encoding. The event time is written in milliseconds: a
 * {@link Transaction} never has a finer one. Reading goes through the records' public constructors,
 * so a deserialized transaction has passed the domain's rules like any other.
 *
 * <p>The type is treated as immutable: the records are, and {@link SourceRecord} documents that its
 * byte arrays are never modified after construction.
 */
public final class SourcedTransactionSerializer
    extends TypeSerializerSingleton<SourcedTransaction> {

  private static final long serialVersionUID = 1L;

  /** The one instance: the serializer has no state. */
  public static final SourcedTransactionSerializer INSTANCE = new SourcedTransactionSerializer();

  /**
   * What {@link #createInstance()} returns: a valid placeholder, never read (this serializer
   * ignores reuse objects).
   */
  private static final SourcedTransaction PLACEHOLDER =
      new SourcedTransaction(
          new Transaction("-", "-", 0, "XXX", Instant.EPOCH),
          new SourceRecord("-", 0, 0, -1, null, null));

  private SourcedTransactionSerializer() {}

  @Override
  public boolean isImmutableType() {
    return true;
  }

  @Override
  public SourcedTransaction createInstance() {
    return PLACEHOLDER;
  }

  @Override
  public SourcedTransaction copy(SourcedTransaction from) {
    return from;
  }

  @Override
  public SourcedTransaction copy(SourcedTransaction from, SourcedTransaction reuse) {
    return from;
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(SourcedTransaction record, DataOutputView out) throws IOException {
    Transaction tx = record.transaction();
    StringValue.writeString(tx.transactionId(), out);
    StringValue.writeString(tx.userId(), out);
    out.writeLong(tx.amountCents());
    StringValue.writeString(tx.currency(), out);
    out.writeLong(tx.eventTimeMillis());
    SourceRecord source = record.source();
    StringValue.writeString(source.topic(), out);
    out.writeInt(source.partition());
    out.writeLong(source.offset());
    out.writeLong(source.timestampMillis());
    writeBytes(source.key(), out);
    writeBytes(source.value(), out);
  }

  @Override
  public SourcedTransaction deserialize(DataInputView in) throws IOException {
    String transactionId = StringValue.readString(in);
    String userId = StringValue.readString(in);
    long amountCents = in.readLong();
    String currency = StringValue.readString(in);
    Instant eventTime = Instant.ofEpochMilli(in.readLong());
    Transaction tx = new Transaction(transactionId, userId, amountCents, currency, eventTime);
    String topic = StringValue.readString(in);
    int partition = in.readInt();
    long offset = in.readLong();
    long timestampMillis = in.readLong();
    byte[] key = readBytes(in);
    byte[] value = readBytes(in);
    return new SourcedTransaction(
        tx, new SourceRecord(topic, partition, offset, timestampMillis, key, value));
  }

  @Override
  public SourcedTransaction deserialize(SourcedTransaction reuse, DataInputView in)
      throws IOException {
    return deserialize(in);
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    StringValue.copyString(in, out);
    StringValue.copyString(in, out);
    out.write(in, Long.BYTES);
    StringValue.copyString(in, out);
    out.write(in, Long.BYTES);
    StringValue.copyString(in, out);
    out.write(in, Integer.BYTES + Long.BYTES + Long.BYTES);
    copyBytes(in, out);
    copyBytes(in, out);
  }

  @Override
  public TypeSerializerSnapshot<SourcedTransaction> snapshotConfiguration() {
    return new SourcedTransactionSerializerSnapshot();
  }

  static void writeBytes(byte[] bytes, DataOutputView out) throws IOException {
    if (bytes == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(bytes.length);
      out.write(bytes);
    }
  }

  static byte[] readBytes(DataInputView in) throws IOException {
    int length = in.readInt();
    if (length < 0) {
      return null;
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }

  private static void copyBytes(DataInputView in, DataOutputView out) throws IOException {
    int length = in.readInt();
    out.writeInt(length);
    if (length > 0) {
      out.write(in, length);
    }
  }

  /** Restores this serializer from savepoints; its format has one version. */
  public static final class SourcedTransactionSerializerSnapshot
      extends SimpleTypeSerializerSnapshot<SourcedTransaction> {

    /** Instantiated by Flink, by name, when a savepoint is read. */
    public SourcedTransactionSerializerSnapshot() {
      super(() -> INSTANCE);
    }
  }
}
