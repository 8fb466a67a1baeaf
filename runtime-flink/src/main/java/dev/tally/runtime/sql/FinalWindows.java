package dev.tally.runtime.sql;

import dev.tally.adapters.iceberg.CompletenessMarker;
import dev.tally.domain.spending.UserLedger;
import dev.tally.runtime.topology.AggregationSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Which windows of the output table are final, by the newest completeness marker of the table
 * ({@link CompletenessMarker}) and the configured windows and allowed lateness: what {@code
 * TallyMain query} shows next to a result with a {@value #COLUMN} column.
 */
final class FinalWindows {

  /** The column a result must have for its rows to be judged. */
  static final String COLUMN = "window_end";

  private final Optional<CompletenessMarker> marker;
  private final UserLedger ledger;
  private final long size;
  private final Duration lateness;

  FinalWindows(Optional<CompletenessMarker> marker, AggregationSettings aggregation) {
    this.marker = marker;
    this.ledger = new UserLedger(aggregation.windows(), aggregation.allowedLateness());
    this.size = aggregation.windows().size().toMillis();
    this.lateness = aggregation.allowedLateness();
  }

  /** Whether the window ending at {@code end} is final: the domain's rule, at the marker. */
  boolean isFinal(Instant end) {
    return marker.isPresent()
        && ledger.finalAt(end.toEpochMilli() - size) <= marker.get().completeUpTo();
  }

  /** One line saying what the judgement rests on. */
  String describe() {
    if (marker.isEmpty()) {
      return "final: none (no snapshot of the table carries " + CompletenessMarker.PROPERTY + ")";
    }
    CompletenessMarker m = marker.get();
    String source = CompletenessMarker.PROPERTY + " of snapshot " + m.snapshotId();
    if (m.watermark() == Long.MAX_VALUE) {
      return "final: every window (" + source + ": the job's input has ended)";
    }
    if (m.watermark() == Long.MIN_VALUE) {
      return "final: none (" + source + ": the job had no watermark yet)";
    }
    return "final: windows ending at or before "
        + TextTable.format(Instant.ofEpochMilli(m.watermark()).minus(lateness))
        + " ("
        + source
        + ": "
        + TextTable.format(Instant.ofEpochMilli(m.watermark()))
        + (lateness.isZero() ? "" : ", less the allowed lateness " + lateness)
        + ")";
  }
}
