package dev.tally.domain.window;

import java.util.List;

/**
 * Assigns an event time to the event-time windows it belongs to, as a pure function: the same
 * instant always gets the same windows, independent of arrival order or clocks.
 */
public sealed interface WindowAssigner permits TumblingWindows, SlidingWindows {

  /**
   * The windows containing {@code epochMillis}, ordered by start.
   *
   * @throws ArithmeticException when a window bound would leave the signed 64-bit millisecond range
   */
  List<EventTimeWindow> assign(long epochMillis);
}
