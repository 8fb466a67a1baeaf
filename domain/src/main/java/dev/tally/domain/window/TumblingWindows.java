package dev.tally.domain.window;

import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Fixed-size, non-overlapping windows aligned to the UTC epoch (plus an optional offset): every
 * instant belongs to exactly one. SPEC "Aggregation" uses one-hour tumbling windows with no offset.
 *
 * @param size the window length, at least one millisecond, in whole milliseconds
 * @param offset shifts the alignment; {@code 0 <= offset < size}
 */
public record TumblingWindows(Duration size, Duration offset)
    implements WindowAssigner, Serializable {

  public TumblingWindows {
    WindowMath.requireWholePositiveMillis("size", size);
    Objects.requireNonNull(offset, "offset");
    if (offset.isNegative() || offset.compareTo(size) >= 0) {
      throw new IllegalArgumentException("offset must be in [0, size): " + offset);
    }
    WindowMath.requireWholeMillis("offset", offset);
  }

  /** Tumbling windows of {@code size} aligned to the epoch. */
  public static TumblingWindows of(Duration size) {
    return new TumblingWindows(size, Duration.ZERO);
  }

  /** The start of the one window containing {@code epochMillis}. Pure arithmetic: no allocation. */
  public long windowStart(long epochMillis) {
    return WindowMath.alignDown(epochMillis, offset.toMillis(), size.toMillis());
  }

  /** The one window containing {@code epochMillis}. */
  public EventTimeWindow windowOf(long epochMillis) {
    long start = windowStart(epochMillis);
    return new EventTimeWindow(start, Math.addExact(start, size.toMillis()));
  }

  @Override
  public List<EventTimeWindow> assign(long epochMillis) {
    return List.of(windowOf(epochMillis));
  }
}
