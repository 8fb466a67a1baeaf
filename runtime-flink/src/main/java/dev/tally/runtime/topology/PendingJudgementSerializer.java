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
 *
 * <p>Retired: anomaly state of release {@code b970f33} and before was kept in map and list states
 * of this value; this build keeps one value per user ({@link UserBaselinesSerializer}) and refuses
 * such state with anomalies on ({@link AnomalyWatch#refuseRetiredLayout}). Kept because Flink must
 * find the serializer a savepoint names to restore it at all, even to refuse it, or to ignore it
 * with anomalies off.
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
