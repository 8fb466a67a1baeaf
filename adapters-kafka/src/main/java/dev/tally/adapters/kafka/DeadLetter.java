package dev.tally.adapters.kafka;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * A record of the dead-letter topic, read back: where it is, when it was written, the original key
 * and value bytes, and what its {@link DeadLetterHeaders} say.
 *
 * @param id {@code <dead-letter topic>:<partition>:<offset>}
 * @param timestampMillis the dead letter's own record timestamp: when it was written
 * @param reason the reason code, empty when the header is missing
 * @param sourceTopic the original record's topic, empty when the header is missing
 * @param sourcePartition its partition, -1 when the header is missing
 * @param sourceOffset its offset, -1 when the header is missing
 */
public record DeadLetter(
    String id,
    long timestampMillis,
    byte[] key,
    byte[] value,
    String reason,
    String sourceTopic,
    int sourcePartition,
    long sourceOffset) {

  public DeadLetter {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(sourceTopic, "sourceTopic");
  }

  /** The dead letter {@code record} of the dead-letter topic. */
  public static DeadLetter of(ConsumerRecord<byte[], byte[]> record) {
    Headers headers = record.headers();
    return new DeadLetter(
        record.topic() + ":" + record.partition() + ":" + record.offset(),
        record.timestamp(),
        record.key(),
        record.value(),
        text(headers, DeadLetterHeaders.REASON),
        text(headers, DeadLetterHeaders.SOURCE_TOPIC),
        (int) number(headers, DeadLetterHeaders.SOURCE_PARTITION),
        number(headers, DeadLetterHeaders.SOURCE_OFFSET));
  }

  /** Where the original record was, {@code <topic>:<partition>:<offset>}. */
  public String source() {
    return sourceTopic + ":" + sourcePartition + ":" + sourceOffset;
  }

  static String text(Headers headers, String key) {
    Header header = headers.lastHeader(key);
    return header == null || header.value() == null
        ? ""
        : new String(header.value(), StandardCharsets.UTF_8);
  }

  static long number(Headers headers, String key) {
    String text = text(headers, key);
    try {
      return text.isEmpty() ? -1 : Long.parseLong(text);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
