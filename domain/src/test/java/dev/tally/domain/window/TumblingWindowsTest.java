package dev.tally.domain.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TumblingWindowsTest {

  private static final TumblingWindows HOURLY = TumblingWindows.of(Duration.ofHours(1));

  private static long millis(String iso) {
    return Instant.parse(iso).toEpochMilli();
  }

  @ParameterizedTest
  @CsvSource({
    "2026-11-29T10:00:00Z,     2026-11-29T10:00:00Z, 2026-11-29T11:00:00Z",
    "2026-11-29T10:00:00.001Z, 2026-11-29T10:00:00Z, 2026-11-29T11:00:00Z",
    "2026-11-29T10:59:59.999Z, 2026-11-29T10:00:00Z, 2026-11-29T11:00:00Z",
    "2026-11-29T11:00:00Z,     2026-11-29T11:00:00Z, 2026-11-29T12:00:00Z",
    "1970-01-01T00:00:00Z,     1970-01-01T00:00:00Z, 1970-01-01T01:00:00Z",
    "1969-12-31T23:59:59.999Z, 1969-12-31T23:00:00Z, 1970-01-01T00:00:00Z",
    "1969-12-31T23:00:00Z,     1969-12-31T23:00:00Z, 1970-01-01T00:00:00Z",
    "1900-06-15T12:34:56Z,     1900-06-15T12:00:00Z, 1900-06-15T13:00:00Z",
    "0001-01-01T00:00:00Z,     0001-01-01T00:00:00Z, 0001-01-01T01:00:00Z"
  })
  void hourlyWindowsAreHalfOpenAndAlignedToTheEpoch(String event, Instant start, Instant end) {
    EventTimeWindow window = HOURLY.windowOf(millis(event));

    assertThat(window.start()).isEqualTo(start);
    assertThat(window.end()).isEqualTo(end);
    assertThat(window.contains(millis(event))).isTrue();
    assertThat(HOURLY.windowStart(millis(event))).isEqualTo(window.startMillis());
  }

  @Test
  void anEventAtExactlyTheEndBelongsToTheNextWindow() {
    EventTimeWindow first = HOURLY.windowOf(millis("2026-11-29T10:30:00Z"));

    assertThat(first.contains(first.endMillis())).isFalse();
    assertThat(HOURLY.windowOf(first.endMillis()).startMillis()).isEqualTo(first.endMillis());
    assertThat(HOURLY.windowOf(first.endMillis() - 1)).isEqualTo(first);
  }

  @Test
  void windowSizesThatDoNotDivideADayStayAlignedToTheEpochNotToMidnight() {
    TumblingWindows sevenMinutes = TumblingWindows.of(Duration.ofMinutes(7));
    long sevenMinutesMillis = Duration.ofMinutes(7).toMillis();
    // 2026-11-29T00:00Z is 29_931_840 minutes after the epoch; 29_931_840 mod 7 = 1, so the window
    // around midnight started 1 minute before it.
    EventTimeWindow aroundMidnight = sevenMinutes.windowOf(millis("2026-11-29T00:00:00Z"));

    assertThat(aroundMidnight.start()).isEqualTo(Instant.parse("2026-11-28T23:59:00Z"));
    assertThat(aroundMidnight.startMillis() % sevenMinutesMillis).isZero();

    TumblingWindows fiveHours = TumblingWindows.of(Duration.ofHours(5));
    assertThat(fiveHours.windowOf(millis("1970-01-02T00:00:00Z")).start())
        .isEqualTo(Instant.parse("1970-01-01T20:00:00Z"));
    assertThat(fiveHours.windowOf(millis("1969-12-31T23:00:00Z")).start())
        .isEqualTo(Instant.parse("1969-12-31T19:00:00Z"));
  }

  @Test
  void anOffsetShiftsTheAlignment() {
    TumblingWindows days = new TumblingWindows(Duration.ofDays(1), Duration.ofHours(6));

    assertThat(days.windowOf(millis("2026-11-29T05:59:59.999Z")).start())
        .isEqualTo(Instant.parse("2026-11-28T06:00:00Z"));
    assertThat(days.windowOf(millis("2026-11-29T06:00:00Z")).start())
        .isEqualTo(Instant.parse("2026-11-29T06:00:00Z"));
  }

  @Property(tries = 2_000)
  void everyInstantLiesInExactlyTheWindowItIsAssigned(
      @ForAll @LongRange(min = -62_135_596_800_000L, max = 253_402_300_799_999L) long t,
      @ForAll @LongRange(min = 1, max = 90L * 24 * 3_600_000) long sizeMillis) {
    TumblingWindows windows = TumblingWindows.of(Duration.ofMillis(sizeMillis));
    EventTimeWindow window = windows.windowOf(t);

    assertThat(window.contains(t)).isTrue();
    assertThat(window.endMillis() - window.startMillis()).isEqualTo(sizeMillis);
    assertThat(Math.floorMod(window.startMillis(), sizeMillis)).isZero();
  }

  @Test
  void rejectsSizesAndOffsetsThatMakeNoSense() {
    assertThatThrownBy(() -> TumblingWindows.of(Duration.ZERO))
        .hasMessageContaining("size must be at least one millisecond");
    assertThatThrownBy(() -> TumblingWindows.of(Duration.ofNanos(1500)))
        .hasMessageContaining("whole milliseconds");
    assertThatThrownBy(() -> new TumblingWindows(Duration.ofHours(1), Duration.ofHours(1)))
        .hasMessageContaining("offset must be in [0, size)");
  }

  @Test
  void windowBoundsThatLeaveTheLongRangeAreReportedNotWrapped() {
    assertThatThrownBy(() -> HOURLY.windowOf(Long.MAX_VALUE))
        .isInstanceOf(ArithmeticException.class);
  }
}
