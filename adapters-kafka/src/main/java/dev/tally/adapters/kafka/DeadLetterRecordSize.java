package dev.tally.adapters.kafka;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;

/**
 * How many bytes a dead letter takes on the wire, and the room the dead-letter path needs beyond
 * the original key and value: docs/behaviour.md "Record size".
 *
 * <p>Kafka limits a record three times: the producer refuses one whose batch could exceed {@code
 * max.request.size} or {@code buffer.memory}, estimated as the upper bound computed here (the
 * producer's own estimate for the current record format, uncompressed), and the broker refuses a
 * batch larger than the topic's {@code max.message.bytes}. A record larger than {@code batch.size}
 * travels in a batch of its own, so one record's bound is what must fit.
 */
final class DeadLetterRecordSize {

  /** The header of a record batch in the current format (magic 2). */
  static final int BATCH_OVERHEAD = 61;

  /**
   * A record's own overhead at most: its length, attributes, timestamp delta and offset delta, as
   * variable-length integers of their largest size.
   */
  static final int MAX_RECORD_OVERHEAD = 21;

  /**
   * The most bytes of {@code tally.message} a dead letter carries: longer messages are cut (none of
   * Tally's own messages comes near it), so that the headers have a fixed bound.
   */
  static final int MAX_MESSAGE_BYTES = 4096;

  /**
   * What the dead-letter path needs beyond the largest record a source topic can hold: the batch
   * and record overhead and every header at its largest (a 249-character topic name, a message of
   * {@link #MAX_MESSAGE_BYTES}, the longest reason and numbers). {@code DeadLetterRecordSizeTest}
   * checks that the real bound stays within it.
   */
  static final int HEADROOM = 8192;

  private DeadLetterRecordSize() {}

  /** The producer's upper bound of a batch holding only this record (key and value may be null). */
  static long upperBound(byte[] key, byte[] value, Header[] headers) {
    return upperBound(key == null ? -1 : key.length, value == null ? -1 : value.length, headers);
  }

  /** As {@link #upperBound(byte[], byte[], Header[])}, from the key and value sizes (-1: null). */
  static long upperBound(long keyBytes, long valueBytes, Header[] headers) {
    long size = BATCH_OVERHEAD + MAX_RECORD_OVERHEAD;
    size += field(keyBytes) + field(valueBytes);
    size += varintSize(headers.length);
    for (Header header : headers) {
      size += field(header.key().getBytes(StandardCharsets.UTF_8).length);
      size += field(header.value() == null ? -1 : header.value().length);
    }
    return size;
  }

  /**
   * What the dead-letter producer and topic must accept so that a record of {@code
   * sourceMaxMessageBytes} (its key and value together; a source batch is never smaller than the
   * record it holds) reaches the dead-letter topic whole.
   */
  static long requiredFor(long sourceMaxMessageBytes) {
    return sourceMaxMessageBytes + HEADROOM;
  }

  /** {@code text} as UTF-8, cut at a character boundary to at most {@code maxBytes} bytes. */
  static byte[] utf8AtMost(String text, int maxBytes) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= maxBytes) {
      return bytes;
    }
    byte[] ellipsis = "…".getBytes(StandardCharsets.UTF_8);
    int cut = maxBytes - ellipsis.length;
    // Back off continuation bytes (10xxxxxx) so the cut never splits a character.
    while (cut > 0 && (bytes[cut] & 0xC0) == 0x80) {
      cut--;
    }
    byte[] result = new byte[cut + ellipsis.length];
    System.arraycopy(bytes, 0, result, 0, cut);
    System.arraycopy(ellipsis, 0, result, cut, ellipsis.length);
    return result;
  }

  /** A length-prefixed field: its length as a varint, then its bytes; -1 (null) has no bytes. */
  private static long field(long bytes) {
    return bytes < 0 ? varintSize(-1) : varintSize(bytes) + bytes;
  }

  /** Bytes of a zig-zag encoded variable-length integer, as Kafka writes record fields. */
  static int varintSize(long value) {
    long v = (value << 1) ^ (value >> 63);
    int bytes = 1;
    while ((v & ~0x7FL) != 0) {
      bytes++;
      v >>>= 7;
    }
    return bytes;
  }
}
