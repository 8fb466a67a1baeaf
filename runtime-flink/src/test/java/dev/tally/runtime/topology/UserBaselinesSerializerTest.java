package dev.tally.runtime.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.domain.anomaly.Baseline;
import dev.tally.domain.anomaly.BaselineHead;
import dev.tally.domain.anomaly.HourBucket;
import dev.tally.domain.anomaly.PendingJudgement;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Flink's conformance suite for serializers (round trips, copies, the snapshot written to a
 * savepoint and restored against this serializer), over users' anomaly states, and the sizes that
 * docs/behaviour.md "Anomalies" quotes.
 */
class UserBaselinesSerializerTest extends SerializerTestBase<UserBaselines> {

  /** An hour in 2026, counted from the epoch. */
  private static final long HOUR = 495_000L;

  private static final long DAY = HOUR / 24;

  /**
   * A key as the anomaly bench has them: four transactions a day for 7 days, each in an hour of its
   * own, of about 25 units, none waiting.
   */
  static UserBaselines benchKey() {
    UserBaselines user = new UserBaselines();
    for (int i = 0; i < 28; i++) {
      long hour = HOUR - 168 + i * 6;
      long amount = 2_000 + 37L * i;
      HourBucket bucket = HourBucket.of(amount);
      user.putBucket("EUR", hour, bucket);
      BaselineHead head = user.head("EUR");
      user.putHead("EUR", (head == null ? BaselineHead.empty(HOUR) : head).counted(hour, amount));
    }
    user.forgetTimerRegistered(DAY);
    return user;
  }

  private static UserBaselines of(
      Map<String, BaselineHead> heads,
      Map<String, Map<Long, HourBucket>> buckets,
      List<PendingJudgement> pending,
      long forgetDay) {
    return new UserBaselines(
        new LinkedHashMap<>(heads), new HashMap<>(buckets), new ArrayList<>(pending), forgetDay);
  }

  @Override
  protected TypeSerializer<UserBaselines> createSerializer() {
    return UserBaselinesSerializer.INSTANCE;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<UserBaselines> getTypeClass() {
    return UserBaselines.class;
  }

  @Override
  protected UserBaselines[] getTestData() {
    BigInteger huge = BigInteger.valueOf(Long.MAX_VALUE).pow(2).multiply(BigInteger.TEN);
    HourBucket big = new HourBucket(Long.MAX_VALUE, huge.negate(), huge.pow(2));
    return new UserBaselines[] {
      new UserBaselines(),
      benchKey(),
      // Two currencies, buckets of several transactions, extreme sums, hours before the cursor
      // and after it, and transactions waiting.
      of(
          Map.of(
              "EUR",
                  new BaselineHead(
                      Long.MIN_VALUE / 4,
                      new Baseline(Long.MAX_VALUE, huge, huge.pow(2)),
                      new long[] {Long.MIN_VALUE / 2, -1, 0, Long.MAX_VALUE / 2}),
              "\u00e9\u4e2d\ud83d\ude00",
                  new BaselineHead(HOUR, Baseline.EMPTY.plus(HourBucket.of(5)), new long[] {HOUR})),
          Map.of(
              "EUR",
                  Map.of(
                      Long.MIN_VALUE / 2,
                      big,
                      -1L,
                      HourBucket.of(1),
                      0L,
                      HourBucket.of(Long.MAX_VALUE).plus(Long.MAX_VALUE),
                      Long.MAX_VALUE / 2,
                      HourBucket.of(3).plus(4).plus(5)),
              "\u00e9\u4e2d\ud83d\ude00", Map.of(HOUR, HourBucket.of(5))),
          List.of(
              new PendingJudgement("t-1", "EUR", HOUR * 3_600_000L + 5, 7),
              new PendingJudgement("", "\u00e9\u4e2d\ud83d\ude00", Long.MIN_VALUE, Long.MAX_VALUE)),
          Long.MAX_VALUE),
    };
  }

  @Test
  void aBucketOfOneTransactionStoresNoSumOfSquaresYetReadsItBack() throws Exception {
    UserBaselines one = new UserBaselines();
    one.putBucket("EUR", HOUR - 1, HourBucket.of(1_234_567));
    one.putHead("EUR", BaselineHead.empty(HOUR).counted(HOUR - 1, 1_234_567));

    UserBaselines read = roundTrip(one);

    assertThat(read.bucket("EUR", HOUR - 1)).isEqualTo(HourBucket.of(1_234_567));
    assertThat(read).isEqualTo(one);
  }

  @Test
  void bucketsNoStepReadsStayPackedAndAreWrittenBackByteForByte() throws Exception {
    byte[] stored = bytes(benchKey());
    UserBaselines read = read(stored);

    // What a timer with nothing to judge or forget does: the head, the waiting list, no bucket.
    read.putHead("EUR", read.head("EUR"));
    assertThat(read.packed("EUR")).isNotNull();
    assertThat(bytes(read)).isEqualTo(stored);

    // A step that reads a bucket decodes them; the value is still the same.
    assertThat(read.bucket("EUR", HOUR - 168)).isEqualTo(HourBucket.of(2_000));
    assertThat(read.packed("EUR")).isNull();
    assertThat(bytes(read)).isEqualTo(stored);
  }

  @Test
  void aBenchKeysSevenDaysTakeAboutTwoHundredBytes() throws Exception {
    // 28 buckets of one transaction: a byte of hour difference, one of count and three of sum
    // (length, two bytes) each, and some 40 bytes of head.
    assertThat(size(benchKey())).isBetween(150, 200);
  }

  @Test
  void stateWhoseBucketsAreNotTheHoursItsHeadListsIsNotWritten() {
    UserBaselines broken = new UserBaselines();
    broken.putHead("EUR", BaselineHead.empty(HOUR).counted(HOUR - 1, 10));

    assertThatThrownBy(() -> size(broken))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("EUR holds 0 buckets, its head lists 1");
  }

  @Test
  void copiesAreIndependentSoTheHeapBackendCanSnapshotWhileTheJobWrites() {
    UserBaselines user = benchKey();
    UserBaselines copy = UserBaselinesSerializer.INSTANCE.copy(user);

    user.removeHead("EUR");
    user.await(new PendingJudgement("t", "EUR", 0, 1));

    assertThat(copy).isEqualTo(benchKey());
    assertThat(UserBaselinesSerializer.INSTANCE.isImmutableType()).isFalse();
  }

  private static int size(UserBaselines user) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(256);
    UserBaselinesSerializer.INSTANCE.serialize(user, out);
    return out.length();
  }

  private static byte[] bytes(UserBaselines user) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(256);
    UserBaselinesSerializer.INSTANCE.serialize(user, out);
    return out.getCopyOfBuffer();
  }

  private static UserBaselines read(byte[] bytes) throws Exception {
    return UserBaselinesSerializer.INSTANCE.deserialize(
        new org.apache.flink.core.memory.DataInputDeserializer(bytes));
  }

  private static UserBaselines roundTrip(UserBaselines user) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(256);
    UserBaselinesSerializer.INSTANCE.serialize(user, out);
    return UserBaselinesSerializer.INSTANCE.deserialize(
        new org.apache.flink.core.memory.DataInputDeserializer(out.getCopyOfBuffer()));
  }
}
