package dev.tally.adapters.kafka;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarksWithIdleness;
import org.apache.flink.util.clock.RelativeClock;

/**
 * Bounded out-of-orderness over accepted transactions only (docs/behaviour.md "Watermarks"). A
 * rejected record's timestamp says nothing about event-time progress, and a {@code
 * FUTURE_TIMESTAMP} record in particular must not drag the watermark forward: that is why it was
 * rejected. Nor is a rejected record a sign of activity: a partition that sends no accepted record
 * for the idle timeout is idle, however many rejected ones it sends, so that a partition of nothing
 * but bad records cannot hold every window open. That is why idleness is applied here, to the
 * accepted records, and not by {@code WatermarkStrategy.withIdleness}, which counts every record.
 *
 * <p>Emits {@code maxEventTime - bound - 1}, Flink's convention (a watermark {@code W} promises no
 * more events at or before {@code W}). A window {@code [start, end)} therefore fires once {@code
 * maxEventTime - bound >= end}, exactly "the watermark passes its end" of docs/behaviour.md
 * "Watermarks".
 */
final class AcceptedEventsWatermarks implements WatermarkGenerator<DecodedRecord> {

  private final WatermarkGenerator<DecodedRecord> accepted;
  private final CaughtUpIdleness positions;

  /** Without idleness: a silent partition holds the watermark back for ever. */
  AcceptedEventsWatermarks(Duration outOfOrderness) {
    this.accepted = new LargestEventTime(outOfOrderness.toMillis());
    this.positions = null;
  }

  /**
   * @param idleTimeout a partition without an accepted record this long is idle; positive
   * @param inputActivityClock the source's clock for idleness (it stands still under backpressure)
   */
  AcceptedEventsWatermarks(
      Duration outOfOrderness, Duration idleTimeout, RelativeClock inputActivityClock) {
    this.accepted =
        new WatermarksWithIdleness<>(
            new LargestEventTime(outOfOrderness.toMillis()), idleTimeout, inputActivityClock);
    this.positions = null;
  }

  /**
   * For one Kafka partition: idle only once it has sent no accepted record for the idle timeout and
   * is caught up with its log end ({@link CaughtUpIdleness}).
   *
   * @param partitions the reader's partitions and probe
   */
  AcceptedEventsWatermarks(
      Duration outOfOrderness,
      Duration idleTimeout,
      RelativeClock inputActivityClock,
      ReaderPartitions partitions) {
    this.positions =
        new CaughtUpIdleness(
            new LargestEventTime(outOfOrderness.toMillis()),
            idleTimeout,
            inputActivityClock,
            partitions);
    this.accepted = positions;
  }

  @Override
  public void onEvent(DecodedRecord event, long eventTimestamp, WatermarkOutput output) {
    if (event.isAccepted()) {
      accepted.onEvent(event, eventTimestamp, output);
    } else if (positions != null) {
      positions.onRejected(event);
    }
  }

  @Override
  public void onPeriodicEmit(WatermarkOutput output) {
    accepted.onPeriodicEmit(output);
  }

  /** The largest event time seen, minus the bound and 1 ms; nothing before the first event. */
  static final class LargestEventTime implements WatermarkGenerator<DecodedRecord> {
    private final long boundMillis;
    private long maxEventTime = Long.MIN_VALUE;

    LargestEventTime(long boundMillis) {
      this.boundMillis = boundMillis;
    }

    @Override
    public void onEvent(DecodedRecord event, long eventTimestamp, WatermarkOutput output) {
      maxEventTime = Math.max(maxEventTime, eventTimestamp);
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
      if (maxEventTime != Long.MIN_VALUE) {
        output.emitWatermark(new Watermark(maxEventTime - boundMillis - 1));
      }
    }
  }
}
