package dev.tally.domain.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class SlidingWindowsTest {

  private static long millis(String iso) {
    return Instant.parse(iso).toEpochMilli();
  }

  @Test
  void anEventBelongsToEveryWindowThatCoversIt() {
    SlidingWindows windows = SlidingWindows.of(Duration.ofHours(1), Duration.ofMinutes(15));

    List<EventTimeWindow> assigned = windows.assign(millis("2026-11-29T10:20:00Z"));

    assertThat(assigned)
        .extracting(EventTimeWindow::start)
        .containsExactly(
            Instant.parse("2026-11-29T09:30:00Z"),
            Instant.parse("2026-11-29T09:45:00Z"),
            Instant.parse("2026-11-29T10:00:00Z"),
            Instant.parse("2026-11-29T10:15:00Z"));
  }

  @Test
  void anEventAtAWindowEndLeavesThatWindow() {
    SlidingWindows windows = SlidingWindows.of(Duration.ofHours(1), Duration.ofMinutes(30));

    assertThat(windows.assign(millis("2026-11-29T11:00:00Z")))
        .extracting(EventTimeWindow::start)
        .containsExactly(
            Instant.parse("2026-11-29T10:30:00Z"), Instant.parse("2026-11-29T11:00:00Z"));
  }

  @Test
  void sevenDayWindowsSlidingByADayBeforeTheEpoch() {
    SlidingWindows weekly = SlidingWindows.of(Duration.ofDays(7), Duration.ofDays(1));

    List<EventTimeWindow> assigned = weekly.assign(millis("1969-12-31T12:00:00Z"));

    assertThat(assigned).hasSize(7);
    assertThat(assigned.get(6).start()).isEqualTo(Instant.parse("1969-12-31T00:00:00Z"));
    assertThat(assigned.get(0).start()).isEqualTo(Instant.parse("1969-12-25T00:00:00Z"));
  }

  @Test
  void aSlideLongerThanTheSizeLeavesGaps() {
    SlidingWindows sampled = SlidingWindows.of(Duration.ofMinutes(10), Duration.ofHours(1));

    assertThat(sampled.assign(millis("2026-11-29T10:05:00Z"))).hasSize(1);
    assertThat(sampled.assign(millis("2026-11-29T10:15:00Z"))).isEmpty();
  }

  @Property(tries = 1_000)
  void theAssignedWindowsAreExactlyThoseThatContainTheEvent(
      @ForAll @LongRange(min = -100_000_000_000L, max = 100_000_000_000L) long t,
      @ForAll @LongRange(min = 1, max = 10_000) long size,
      @ForAll @LongRange(min = 1, max = 3_000) long slide) {
    List<EventTimeWindow> assigned =
        SlidingWindows.of(Duration.ofMillis(size), Duration.ofMillis(slide)).assign(t);

    assertThat(assigned).allSatisfy(w -> assertThat(w.contains(t)).isTrue());
    assertThat(assigned)
        .allSatisfy(w -> assertThat(Math.floorMod(w.startMillis(), slide)).isZero());
    // Every aligned start in (t - size, t] yields a window, so the count is fixed by arithmetic
    // alone.
    long expected = Math.floorDiv(t, slide) - Math.floorDiv(t - size, slide);
    assertThat(assigned).hasSize((int) expected);
    assertThat(assigned)
        .isSortedAccordingTo((a, b) -> Long.compare(a.startMillis(), b.startMillis()));
  }

  @Test
  void rejectsAnOffsetOutsideTheSlide() {
    assertThatThrownBy(
            () ->
                new SlidingWindows(
                    Duration.ofHours(1), Duration.ofMinutes(5), Duration.ofMinutes(5)))
        .hasMessageContaining("offset must be in [0, slide)");
  }
}
