package dev.tally.domain.window;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * Fixed-size, non-overlapping windows aligned to the UTC epoch (plus an optional offset): every
 * instant belongs to exactly one. docs/behaviour.md "Aggregation" uses one-hour tumbling windows
 * with no offset.
 *
 * @param size the window length, at least one millisecond, in whole milliseconds
 * @param offset shifts the alignment; {@code 0 <= offset < size}
 */
public record TumblingWindows(Duration size, Duration offset) implements Serializable {

  public TumblingWindows {
    Objects.requireNonNull(size, "size");
    requireWholeMillis("size", size);
    if (size.toMillis() <= 0) {
      throw new IllegalArgumentException("size must be at least one millisecond: " + size);
    }
    Objects.requireNonNull(offset, "offset");
    if (offset.isNegative() || offset.compareTo(size) >= 0) {
      throw new IllegalArgumentException("offset must be in [0, size): " + offset);
    }
    requireWholeMillis("offset", offset);
  }

  /** Tumbling windows of {@code size} aligned to the epoch. */
  public static TumblingWindows of(Duration size) {
    return new TumblingWindows(size, Duration.ZERO);
  }

  /**
   * The start of the one window containing {@code epochMillis}: the largest {@code offset + k *
   * size} (integer k) not after it. Pure arithmetic, no allocation. {@link Math#floorMod} keeps it
   * right for instants before 1970, where {@code %} would round towards zero and put the event in
   * the next window.
   */
  public long windowStart(long epochMillis) {
    return Math.subtractExact(
        epochMillis,
        Math.floorMod(Math.subtractExact(epochMillis, offset.toMillis()), size.toMillis()));
  }

  /** The one window containing {@code epochMillis}. */
  public EventTimeWindow windowOf(long epochMillis) {
    long start = windowStart(epochMillis);
    return new EventTimeWindow(start, Math.addExact(start, size.toMillis()));
  }

  private static void requireWholeMillis(String name, Duration d) {
    if (d.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(name + " must be whole milliseconds: " + d);
    }
  }
}
