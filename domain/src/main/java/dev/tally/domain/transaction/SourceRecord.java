package dev.tally.domain.transaction;

import java.util.Arrays;
import java.util.Objects;

/**
 * Where a record came from, with its bytes exactly as they were read, so that a rejection decided
 * anywhere in the pipeline can hand the original record to the dead-letter topic unchanged.
 *
 * <p>Records compare by content: the byte arrays are compared element by element. The arrays are
 * not copied (this type sits on the per-record path); callers must not modify them after
 * construction.
 *
 * @param topic the source topic
 * @param partition the source partition
 * @param offset the record's offset in its partition
 * @param timestampMillis the source record timestamp in epoch milliseconds, or a negative value
 *     when the source had none
 * @param key the original key bytes, {@code null} when the record had no key
 * @param value the original value bytes, {@code null} for a tombstone
 */
public record SourceRecord(
    String topic, int partition, long offset, long timestampMillis, byte[] key, byte[] value) {

  public SourceRecord {
    Objects.requireNonNull(topic, "topic");
    if (partition < 0) {
      throw new IllegalArgumentException("partition must not be negative: " + partition);
    }
    if (offset < 0) {
      throw new IllegalArgumentException("offset must not be negative: " + offset);
    }
  }

  /** Whether the source supplied a record timestamp. */
  public boolean hasTimestamp() {
    return timestampMillis >= 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SourceRecord other
        && partition == other.partition
        && offset == other.offset
        && timestampMillis == other.timestampMillis
        && topic.equals(other.topic)
        && Arrays.equals(key, other.key)
        && Arrays.equals(value, other.value);
  }

  @Override
  public int hashCode() {
    int h = Objects.hash(topic, partition, offset, timestampMillis);
    h = 31 * h + Arrays.hashCode(key);
    return 31 * h + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "SourceRecord["
        + topic
        + "-"
        + partition
        + "@"
        + offset
        + ", timestamp="
        + timestampMillis
        + ", key="
        + (key == null ? "null" : key.length + " bytes")
        + ", value="
        + (value == null ? "null" : value.length + " bytes")
        + "]";
  }
}
