package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.Baseline;
import dev.tally.domain.anomaly.BaselineHead;
import dev.tally.domain.anomaly.HourBucket;
import dev.tally.domain.anomaly.PendingJudgement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * One user's anomaly state ({@link UserBaselines}) as one value, compact because its size is the
 * state's: a 7-day baseline of a user with a few transactions a day is a few dozen buckets,
 * rewritten on every event. Variable-length integers throughout ({@link VarInts}); format version
 * 1:
 *
 * <ol>
 *   <li>the forget day (unsigned), the number of currencies (unsigned);
 *   <li>per currency: its code ({@link StringValue}), the head's cursor hour (zig-zag), the totals'
 *       count (unsigned), sum and sum of squares ({@link VarInts#writeBigInteger}), the number of
 *       bucket hours (unsigned), the first hour as a zig-zag difference from the cursor and each
 *       next one as its (positive) difference from the one before, then the byte length (unsigned)
 *       of the buckets that follow, per hour in that order: count (unsigned), sum, and the sum of
 *       squares only when the count is above 1 (a bucket of one transaction holds the square of its
 *       sum). The length lets a read leave them packed ({@link PackedBuckets}) until needed;
 *   <li>the number of waiting transactions (unsigned), each: id and currency ({@link StringValue}),
 *       event time (zig-zag), amount (unsigned: waiting amounts are positive).
 * </ol>
 */
public final class UserBaselinesSerializer extends TypeSerializerSingleton<UserBaselines> {

  private static final long serialVersionUID = 1L;

  /** The one instance: the serializer has no state. */
  public static final UserBaselinesSerializer INSTANCE = new UserBaselinesSerializer();

  private UserBaselinesSerializer() {}

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public UserBaselines createInstance() {
    return new UserBaselines();
  }

  @Override
  public UserBaselines copy(UserBaselines from) {
    return from.copy();
  }

  @Override
  public UserBaselines copy(UserBaselines from, UserBaselines reuse) {
    return from.copy();
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(UserBaselines value, DataOutputView out) throws IOException {
    VarInts.writeUnsigned(value.forgetDay(), out);
    Map<String, BaselineHead> heads = value.heads();
    VarInts.writeUnsigned(heads.size(), out);
    for (Map.Entry<String, BaselineHead> entry : heads.entrySet()) {
      String currency = entry.getKey();
      BaselineHead head = entry.getValue();
      long[] hours = head.hours();
      if (value.packed(currency) == null && value.bucketCount(currency) != hours.length) {
        throw new IllegalStateException(
            currency
                + " holds "
                + value.bucketCount(currency)
                + " buckets, its head lists "
                + hours.length);
      }
      StringValue.writeString(currency, out);
      VarInts.writeSigned(head.cursor(), out);
      VarInts.writeUnsigned(head.totals().count(), out);
      VarInts.writeBigInteger(head.totals().sum(), out);
      VarInts.writeBigInteger(head.totals().sumOfSquares(), out);
      VarInts.writeUnsigned(hours.length, out);
      for (int i = 0; i < hours.length; i++) {
        if (i == 0) {
          VarInts.writeSigned(hours[0] - head.cursor(), out);
        } else {
          VarInts.writeUnsigned(hours[i] - hours[i - 1], out);
        }
      }
      PackedBuckets packed = value.packed(currency);
      byte[] section = packed != null ? packed.bytes() : packBuckets(value, currency, hours);
      VarInts.writeUnsigned(section.length, out);
      out.write(section);
    }
    List<PendingJudgement> pending = value.pending();
    VarInts.writeUnsigned(pending.size(), out);
    for (PendingJudgement p : pending) {
      StringValue.writeString(p.transactionId(), out);
      StringValue.writeString(p.currency(), out);
      VarInts.writeSigned(p.eventTimeMillis(), out);
      VarInts.writeUnsigned(p.amountCents(), out);
    }
  }

  @Override
  public UserBaselines deserialize(DataInputView in) throws IOException {
    long forgetDay = VarInts.readUnsigned(in);
    int currencies = VarInts.readCount(in);
    Map<String, BaselineHead> heads = new LinkedHashMap<>(currencies * 2);
    Map<String, PackedBuckets> packed = new HashMap<>(currencies * 2);
    for (int c = 0; c < currencies; c++) {
      String currency = StringValue.readString(in);
      long cursor = VarInts.readSigned(in);
      Baseline totals =
          new Baseline(
              VarInts.readUnsigned(in), VarInts.readBigInteger(in), VarInts.readBigInteger(in));
      long[] hours = new long[VarInts.readCount(in)];
      for (int i = 0; i < hours.length; i++) {
        hours[i] =
            i == 0 ? cursor + VarInts.readSigned(in) : hours[i - 1] + VarInts.readUnsigned(in);
      }
      byte[] section = new byte[VarInts.readCount(in)];
      in.readFully(section);
      heads.put(currency, new BaselineHead(cursor, totals, hours));
      packed.put(currency, new PackedBuckets(hours, section));
    }
    int waiting = VarInts.readCount(in);
    List<PendingJudgement> pending = new ArrayList<>(Math.max(2, waiting));
    for (int i = 0; i < waiting; i++) {
      pending.add(
          new PendingJudgement(
              StringValue.readString(in),
              StringValue.readString(in),
              VarInts.readSigned(in),
              VarInts.readUnsigned(in)));
    }
    return new UserBaselines(heads, new HashMap<>(currencies * 2), packed, pending, forgetDay);
  }

  private static byte[] packBuckets(UserBaselines value, String currency, long[] hours)
      throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(4 * hours.length + 8);
    for (long hour : hours) {
      HourBucket bucket = value.bucket(currency, hour);
      VarInts.writeUnsigned(bucket.count(), out);
      VarInts.writeBigInteger(bucket.sum(), out);
      if (bucket.count() > 1) {
        VarInts.writeBigInteger(bucket.sumOfSquares(), out);
      }
    }
    return out.getCopyOfBuffer();
  }

  /**
   * A currency's buckets as stored, one per hour its head lists, decoded only when a step needs
   * them; written back byte for byte while nothing changed them.
   *
   * @param hours the hours the buckets are of, ascending; not to be modified
   * @param bytes the buckets in the order of {@code hours}; not to be modified
   */
  record PackedBuckets(long[] hours, byte[] bytes) {

    /** The buckets by hour. */
    Map<Long, HourBucket> decode() {
      DataInputDeserializer in = new DataInputDeserializer(bytes);
      Map<Long, HourBucket> byHour = new HashMap<>(hours.length * 2);
      try {
        for (long hour : hours) {
          long count = VarInts.readUnsigned(in);
          BigInteger sum = VarInts.readBigInteger(in);
          BigInteger sumOfSquares = count > 1 ? VarInts.readBigInteger(in) : sum.multiply(sum);
          byHour.put(hour, new HourBucket(count, sum, sumOfSquares));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("corrupt anomaly buckets", e);
      }
      return byHour;
    }
  }

  @Override
  public UserBaselines deserialize(UserBaselines reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    serialize(deserialize(in), out);
  }

  @Override
  public TypeSerializerSnapshot<UserBaselines> snapshotConfiguration() {
    return new UserBaselinesSerializerSnapshot();
  }

  /** Restores this serializer from savepoints; its format has one version. */
  public static final class UserBaselinesSerializerSnapshot
      extends SimpleTypeSerializerSnapshot<UserBaselines> {

    /** Instantiated by Flink, by name, when a savepoint is read. */
    public UserBaselinesSerializerSnapshot() {
      super(() -> INSTANCE);
    }
  }
}
