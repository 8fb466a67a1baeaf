package dev.tally.domain.window;

import java.time.Duration;
import java.util.Objects;

/** Alignment arithmetic shared by the window assigners. */
final class WindowMath {

  private WindowMath() {}

  /**
   * The largest {@code offset + k * step} (integer k) not after {@code t}. {@link Math#floorMod}
   * keeps it right for instants before 1970, where {@code %} would round towards zero and put the
   * event in the next window.
   */
  static long alignDown(long t, long offset, long step) {
    return Math.subtractExact(t, Math.floorMod(Math.subtractExact(t, offset), step));
  }

  static void requireWholePositiveMillis(String name, Duration d) {
    Objects.requireNonNull(d, name);
    requireWholeMillis(name, d);
    if (d.toMillis() <= 0) {
      throw new IllegalArgumentException(name + " must be at least one millisecond: " + d);
    }
  }

  static void requireWholeMillis(String name, Duration d) {
    if (d.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(name + " must be whole milliseconds: " + d);
    }
  }
}
