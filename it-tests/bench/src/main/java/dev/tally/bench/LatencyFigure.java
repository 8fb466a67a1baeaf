package dev.tally.bench;

import java.util.List;

/**
 * One leg's latency figure of the compare run (freshness, or recovery): percentiles over its
 * samples, and whether the output it measured was right.
 *
 * @param status {@code ok}, {@code wrong} (measured, but the table was not exact), {@code behind}
 *     (measured, and exact as far as the table got, but it did not catch up to check it whole),
 *     {@code failed} or {@code not measured}
 * @param samples how many samples the percentiles are of
 * @param note how it was measured and checked, or why not
 */
record LatencyFigure(
    String status, long p50Millis, long p99Millis, long maxMillis, int samples, String note) {

  static LatencyFigure notMeasured(String why) {
    return new LatencyFigure("not measured", -1, -1, -1, 0, why);
  }

  static LatencyFigure failed(String why) {
    return new LatencyFigure("failed", -1, -1, -1, 0, why);
  }

  /**
   * Nearest-rank percentiles of {@code sorted}; failed when it is empty (the leg ran and gave no
   * sample: no window readable, no recovery seen).
   */
  static LatencyFigure of(List<Long> sorted, boolean right, String note) {
    if (sorted.isEmpty()) {
      return failed("no sample: " + note);
    }
    return new LatencyFigure(
        right ? "ok" : "wrong",
        Freshness.percentile(sorted, 0.5),
        Freshness.percentile(sorted, 0.99),
        sorted.get(sorted.size() - 1),
        sorted.size(),
        note);
  }

  /** This figure with another {@link #status()}. */
  LatencyFigure withStatus(String newStatus) {
    return new LatencyFigure(newStatus, p50Millis, p99Millis, maxMillis, samples, note);
  }

  boolean measured() {
    return status.equals("ok") || status.equals("wrong") || status.equals("behind");
  }
}
