package dev.tally.domain.window;

import java.time.Instant;

/**
 * A half-open event-time interval {@code [start, end)} in epoch milliseconds: an event at exactly
 * {@code end} belongs to the next window.
 *
 * @param startMillis inclusive start, epoch milliseconds
 * @param endMillis exclusive end, epoch milliseconds, greater than the start
 */
public record EventTimeWindow(long startMillis, long endMillis) {

  public EventTimeWindow {
    if (endMillis <= startMillis) {
      throw new IllegalArgumentException(
          "window end " + endMillis + " must be after its start " + startMillis);
    }
  }

  /** The inclusive start. */
  public Instant start() {
    return Instant.ofEpochMilli(startMillis);
  }

  /** The exclusive end. */
  public Instant end() {
    return Instant.ofEpochMilli(endMillis);
  }

  /** Whether an event at {@code epochMillis} falls inside. */
  public boolean contains(long epochMillis) {
    return epochMillis >= startMillis && epochMillis < endMillis;
  }

  /**
   * The last millisecond inside the window: the event-time at which a watermark makes it complete.
   */
  public long maxTimestamp() {
    return endMillis - 1;
  }

  @Override
  public String toString() {
    return "[" + start() + ", " + end() + ")";
  }
}
