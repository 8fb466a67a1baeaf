package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.Anomaly;
import java.io.IOException;
import java.math.BigDecimal;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * An anomaly on its way to the sinks: the three ids ({@link StringValue} strings), event time,
 * amount and baseline count (longs), then mean, standard deviation and score as decimals (scale int
 * and unscaled {@link ImmutableValueSerializer#writeBigInteger}), the score after a presence byte.
 */
public final class AnomalySerializer extends ImmutableValueSerializer<Anomaly> {

  private static final long serialVersionUID = 1L;

  /** The one instance: the serializer has no state. */
  public static final AnomalySerializer INSTANCE = new AnomalySerializer();

  private AnomalySerializer() {}

  @Override
  public void serialize(Anomaly anomaly, DataOutputView out) throws IOException {
    StringValue.writeString(anomaly.transactionId(), out);
    StringValue.writeString(anomaly.userId(), out);
    StringValue.writeString(anomaly.currency(), out);
    out.writeLong(anomaly.eventTimeMillis());
    out.writeLong(anomaly.amountCents());
    out.writeLong(anomaly.baselineCount());
    writeDecimal(anomaly.baselineMeanCents(), out);
    writeDecimal(anomaly.baselineStddevCents(), out);
    out.writeBoolean(anomaly.score() != null);
    if (anomaly.score() != null) {
      writeDecimal(anomaly.score(), out);
    }
  }

  @Override
  public Anomaly deserialize(DataInputView in) throws IOException {
    String transactionId = StringValue.readString(in);
    String userId = StringValue.readString(in);
    String currency = StringValue.readString(in);
    long eventTime = in.readLong();
    long amount = in.readLong();
    long count = in.readLong();
    BigDecimal mean = readDecimal(in);
    BigDecimal stddev = readDecimal(in);
    BigDecimal score = in.readBoolean() ? readDecimal(in) : null;
    return new Anomaly(
        transactionId, userId, currency, eventTime, amount, count, mean, stddev, score);
  }

  private static void writeDecimal(BigDecimal value, DataOutputView out) throws IOException {
    out.writeInt(value.scale());
    writeBigInteger(value.unscaledValue(), out);
  }

  private static BigDecimal readDecimal(DataInputView in) throws IOException {
    int scale = in.readInt();
    return new BigDecimal(readBigInteger(in), scale);
  }

  @Override
  public TypeSerializerSnapshot<Anomaly> snapshotConfiguration() {
    return new AnomalySerializerSnapshot();
  }

  /** Restores this serializer from savepoints; its format has one version. */
  public static final class AnomalySerializerSnapshot
      extends SimpleTypeSerializerSnapshot<Anomaly> {

    /** Instantiated by Flink, by name, when a savepoint is read. */
    public AnomalySerializerSnapshot() {
      super(() -> INSTANCE);
    }
  }
}
