package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.rejection.RejectionReason;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class DeadLetterRecordSizeTest {

  private static Header header(String key, String value) {
    return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
  }

  /** Every dead-letter header at its largest. */
  private static Header[] largestHeaders() {
    String longestReason =
        Arrays.stream(RejectionReason.values())
            .map(Enum::name)
            .max((a, b) -> Integer.compare(a.length(), b.length()))
            .orElseThrow();
    return new Header[] {
      header(DeadLetterHeaders.REASON, longestReason),
      new RecordHeader(DeadLetterHeaders.MESSAGE, new byte[DeadLetterRecordSize.MAX_MESSAGE_BYTES]),
      header(DeadLetterHeaders.SOURCE_TOPIC, "t".repeat(249)),
      header(DeadLetterHeaders.SOURCE_PARTITION, Integer.toString(Integer.MAX_VALUE)),
      header(DeadLetterHeaders.SOURCE_OFFSET, Long.toString(Long.MAX_VALUE)),
      header(DeadLetterHeaders.SOURCE_TIMESTAMP, Long.toString(Long.MIN_VALUE)),
    };
  }

  @Test
  void theBoundIsTheProducersOwnEstimate() {
    for (int keySize : List.of(-1, 0, 1, 63, 64, 8_191, 8_192)) {
      for (int valueSize : List.of(-1, 0, 100, 1_048_576, 2_097_152)) {
        byte[] key = keySize < 0 ? null : new byte[keySize];
        byte[] value = valueSize < 0 ? null : new byte[valueSize];
        for (Header[] headers : List.of(new Header[0], largestHeaders())) {
          assertThat(DeadLetterRecordSize.upperBound(key, value, headers))
              .as("key %d, value %d, %d headers", keySize, valueSize, headers.length)
              .isEqualTo(
                  AbstractRecords.estimateSizeInBytesUpperBound(
                      RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE, key, value, headers));
        }
      }
    }
  }

  @Test
  void theBoundIsNeverLessThanTheBatchTheBrokerSees() {
    byte[] key = "user-1".getBytes(StandardCharsets.UTF_8);
    byte[] value = new byte[1_048_000];
    Header[] headers = largestHeaders();
    MemoryRecords batch =
        MemoryRecords.withRecords(
            RecordBatch.CURRENT_MAGIC_VALUE,
            0L,
            Compression.NONE,
            TimestampType.CREATE_TIME,
            new SimpleRecord(System.currentTimeMillis(), key, value, headers));

    assertThat(DeadLetterRecordSize.upperBound(key, value, headers))
        .isGreaterThanOrEqualTo(batch.sizeInBytes());
  }

  @Test
  void theHeadroomHoldsTheLargestHeadersAndOverhead() {
    long sourceRecord = 1_048_588; // the broker's default message.max.bytes
    // The worst split of the source bytes for the length prefixes: one byte of key, the rest value.
    long bound = DeadLetterRecordSize.upperBound(1, sourceRecord - 1, largestHeaders());

    assertThat(bound).isLessThanOrEqualTo(DeadLetterRecordSize.requiredFor(sourceRecord));
    assertThat(DeadLetterRecordSize.requiredFor(sourceRecord)).isEqualTo(1_048_588 + 8_192);
  }

  @Test
  void aMessageIsCutAtACharacterBoundary() {
    String text = "ü".repeat(10); // 20 bytes

    byte[] cut = DeadLetterRecordSize.utf8AtMost(text, 10);

    assertThat(cut.length).isLessThanOrEqualTo(10);
    // 7 bytes before the 3-byte ellipsis would split the fourth ü: 6 are kept.
    assertThat(new String(cut, StandardCharsets.UTF_8)).isEqualTo("üüü…");
    assertThat(DeadLetterRecordSize.utf8AtMost("short", 10)).isEqualTo("short".getBytes());
  }
}
