package dev.tally.domain.window;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Overlapping (hopping) windows of {@code size} that start every {@code slide}, aligned to the UTC
 * epoch plus an optional offset. An instant belongs to every window whose {@code [start, start +
 * size)} contains it: {@code ceil(size / slide)} or one fewer of them. For anomaly detection over
 * longer horizons, e.g. 7-day windows sliding by a day.
 *
 * @param size the window length, whole milliseconds, positive
 * @param slide the distance between window starts, whole milliseconds, positive
 * @param offset shifts the alignment; {@code 0 <= offset < slide}
 */
public record SlidingWindows(Duration size, Duration slide, Duration offset)
    implements WindowAssigner, Serializable {

  public SlidingWindows {
    WindowMath.requireWholePositiveMillis("size", size);
    WindowMath.requireWholePositiveMillis("slide", slide);
    Objects.requireNonNull(offset, "offset");
    if (offset.isNegative() || offset.compareTo(slide) >= 0) {
      throw new IllegalArgumentException("offset must be in [0, slide): " + offset);
    }
    WindowMath.requireWholeMillis("offset", offset);
  }

  /** Sliding windows aligned to the epoch. */
  public static SlidingWindows of(Duration size, Duration slide) {
    return new SlidingWindows(size, slide, Duration.ZERO);
  }

  @Override
  public List<EventTimeWindow> assign(long epochMillis) {
    long sizeMillis = size.toMillis();
    long slideMillis = slide.toMillis();
    long lastStart = WindowMath.alignDown(epochMillis, offset.toMillis(), slideMillis);
    List<EventTimeWindow> windows =
        new ArrayList<>((int) Math.min(1024, sizeMillis / slideMillis + 1));
    // Walk back from the latest window that starts at or before the event while the window still
    // reaches it.
    for (long start = lastStart;
        start > Math.subtractExact(epochMillis, sizeMillis);
        start = Math.subtractExact(start, slideMillis)) {
      windows.add(new EventTimeWindow(start, Math.addExact(start, sizeMillis)));
    }
    Collections.reverse(windows);
    return List.copyOf(windows);
  }
}
