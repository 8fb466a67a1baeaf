package dev.tally.adapters.kafka;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which dead letters a replay takes: every criterion given must hold, none given takes all.
 *
 * @param reasons reason codes, any of them; empty for every reason
 * @param since dead letters written at or after this instant (their record timestamp); null for no
 *     bound
 * @param until dead letters written before this instant; null for no bound
 * @param sourcePartition the original record's partition; null for any
 * @param fromOffset the original record's offset at least this, in {@code sourcePartition}; null
 *     for no bound
 * @param toOffset the original record's offset below this, in {@code sourcePartition}; null for no
 *     bound
 */
public record DeadLetterSelection(
    Set<String> reasons,
    Instant since,
    Instant until,
    Integer sourcePartition,
    Long fromOffset,
    Long toOffset) {

  public DeadLetterSelection {
    reasons = Set.copyOf(reasons);
    if ((fromOffset != null || toOffset != null) && sourcePartition == null) {
      throw new IllegalArgumentException("source offsets need a source partition");
    }
    if (since != null && until != null && !since.isBefore(until)) {
      throw new IllegalArgumentException("since must be before until");
    }
  }

  /** Whether {@code letter} is selected. */
  public boolean matches(DeadLetter letter) {
    return (reasons.isEmpty() || reasons.contains(letter.reason()))
        && (since == null || letter.timestampMillis() >= since.toEpochMilli())
        && (until == null || letter.timestampMillis() < until.toEpochMilli())
        && (sourcePartition == null || letter.sourcePartition() == sourcePartition)
        && (fromOffset == null || letter.sourceOffset() >= fromOffset)
        && (toOffset == null || letter.sourceOffset() < toOffset);
  }

  /** The selection in words, e.g. {@code reason=LATE since=2026-12-01T10:00:00Z}; {@code all}. */
  public String describe() {
    List<String> parts = new ArrayList<>();
    if (!reasons.isEmpty()) {
      parts.add("reason=" + String.join(",", new TreeSet<>(reasons)));
    }
    if (since != null) {
      parts.add("since=" + since);
    }
    if (until != null) {
      parts.add("until=" + until);
    }
    if (sourcePartition != null) {
      parts.add("source-partition=" + sourcePartition);
    }
    if (fromOffset != null) {
      parts.add("from-offset=" + fromOffset);
    }
    if (toOffset != null) {
      parts.add("to-offset=" + toOffset);
    }
    return parts.isEmpty() ? "all" : String.join(" ", parts);
  }
}
