package dev.tally.adapters.kafka;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;

/**
 * Bounded out-of-orderness over accepted transactions only (docs/behaviour.md "Aggregation"). A
 * rejected record's timestamp says nothing about event-time progress, and a {@code
 * FUTURE_TIMESTAMP} record in particular must not drag the watermark forward: that is why it was
 * rejected.
 *
 * <p>Emits {@code maxEventTime - bound - 1}, Flink's convention (a watermark {@code W} promises no
 * more events at or before {@code W}). A window {@code [start, end)} therefore fires once {@code
 * maxEventTime - bound >= end}, exactly "the watermark passes its end" of docs/behaviour.md
 * "Watermarks".
 */
final class AcceptedEventsWatermarks implements WatermarkGenerator<DecodedRecord> {

  private final long boundMillis;
  private long maxEventTime = Long.MIN_VALUE;

  AcceptedEventsWatermarks(Duration outOfOrderness) {
    this.boundMillis = outOfOrderness.toMillis();
  }

  @Override
  public void onEvent(DecodedRecord event, long eventTimestamp, WatermarkOutput output) {
    if (event.isAccepted() && eventTimestamp > maxEventTime) {
      maxEventTime = eventTimestamp;
    }
  }

  @Override
  public void onPeriodicEmit(WatermarkOutput output) {
    if (maxEventTime != Long.MIN_VALUE) {
      output.emitWatermark(new Watermark(maxEventTime - boundMillis - 1));
    }
  }
}
