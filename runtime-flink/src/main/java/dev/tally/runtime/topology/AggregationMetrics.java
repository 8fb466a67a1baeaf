package dev.tally.runtime.topology;

import dev.tally.domain.rejection.RejectionReason;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * The aggregator's metrics, in the operator's group {@code tally}: {@code duplicatesDropped},
 * {@code windowsEmitted}, {@code rejected} with the variable {@code reason} for the reasons
 * aggregation decides, and {@code watermarkLagMillis}; and the write-back's {@code
 * writeBackPendingUsers} ({@link #writeBackPending}).
 */
final class AggregationMetrics {

  private final Counter duplicates;
  private final Counter windowsEmitted;
  private final Map<RejectionReason, Counter> rejected = new EnumMap<>(RejectionReason.class);

  /**
   * @param operator the operator's metric group
   * @param lastWatermark the largest watermark seen, {@code Long.MIN_VALUE} for none
   */
  AggregationMetrics(MetricGroup operator, LongSupplier lastWatermark) {
    MetricGroup tally = operator.addGroup("tally");
    duplicates = tally.counter("duplicatesDropped");
    windowsEmitted = tally.counter("windowsEmitted");
    // How far event time trails the wall clock at this operator: the freshness every closed window
    // waits for.
    tally.gauge(
        "watermarkLagMillis",
        (Gauge<Long>)
            () -> {
              long watermark = lastWatermark.getAsLong();
              return watermark == Long.MIN_VALUE ? -1L : System.currentTimeMillis() - watermark;
            });
    for (RejectionReason reason :
        List.of(
            RejectionReason.LATE,
            RejectionReason.CONFLICTING_DUPLICATE,
            RejectionReason.AMOUNT_OVERFLOW)) {
      rejected.put(reason, tally.addGroup("reason", reason.name()).counter("rejected"));
    }
  }

  /**
   * Registers how many users' open windows wait for the write-back, in the same group; for the
   * operator that drives the write-back.
   */
  static void writeBackPending(MetricGroup operator, IntSupplier pendingUsers) {
    operator
        .addGroup("tally")
        .gauge("writeBackPendingUsers", (Gauge<Integer>) pendingUsers::getAsInt);
  }

  void duplicateDropped() {
    duplicates.inc();
  }

  void windowEmitted() {
    windowsEmitted.inc();
  }

  void rejected(RejectionReason reason) {
    rejected.get(reason).inc();
  }
}
