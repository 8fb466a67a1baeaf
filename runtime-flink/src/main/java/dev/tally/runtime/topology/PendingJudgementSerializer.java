package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.PendingJudgement;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * A transaction waiting for its anomaly judgement: {@code transactionId} and {@code currency}
 * ({@link StringValue} strings), {@code eventTimeMillis} and {@code amountCents} (longs).
 */
public final class PendingJudgementSerializer extends ImmutableValueSerializer<PendingJudgement> {

  private static final long serialVersionUID = 1L;

  /** The one instance: the serializer has no state. */
  public static final PendingJudgementSerializer INSTANCE = new PendingJudgementSerializer();

  private PendingJudgementSerializer() {}

  @Override
  public void serialize(PendingJudgement pending, DataOutputView out) throws IOException {
    StringValue.writeString(pending.transactionId(), out);
    StringValue.writeString(pending.currency(), out);
    out.writeLong(pending.eventTimeMillis());
    out.writeLong(pending.amountCents());
  }

  @Override
  public PendingJudgement deserialize(DataInputView in) throws IOException {
    return new PendingJudgement(
        StringValue.readString(in), StringValue.readString(in), in.readLong(), in.readLong());
  }

  @Override
  public TypeSerializerSnapshot<PendingJudgement> snapshotConfiguration() {
    return new PendingJudgementSerializerSnapshot();
  }

  /** Restores this serializer from savepoints; its format has one version. */
  public static final class PendingJudgementSerializerSnapshot
      extends SimpleTypeSerializerSnapshot<PendingJudgement> {

    /** Instantiated by Flink, by name, when a savepoint is read. */
    public PendingJudgementSerializerSnapshot() {
      super(() -> INSTANCE);
    }
  }
}
