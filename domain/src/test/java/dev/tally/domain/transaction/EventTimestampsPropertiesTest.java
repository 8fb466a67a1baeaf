package dev.tally.domain.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** The hand-written fast path must agree with java.time on every input, valid or not. */
class EventTimestampsPropertiesTest {

  private static final long MIN = Instant.parse("0001-01-01T00:00:00Z").toEpochMilli();
  private static final long MAX = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();

  @Property(tries = 3_000)
  void canonicalIsoFormsAgreeWithJavaTime(
      @ForAll @LongRange(min = -62_135_596_800_000L, max = 253_402_300_799_999L) long millis,
      @ForAll @IntRange(min = -17 * 60, max = 17 * 60) int offsetMinutes,
      @ForAll @IntRange(min = 0, max = 9) int fractionDigits) {
    ZoneOffset offset = ZoneOffset.ofTotalSeconds(offsetMinutes * 60);
    Instant instant =
        Instant.ofEpochMilli(millis).plusNanos(Math.floorMod(millis * 7919L, 1_000_000L));
    String pattern =
        "uuuu-MM-dd'T'HH:mm:ss"
            + (fractionDigits == 0 ? "" : "." + "S".repeat(fractionDigits))
            + "xxx";
    String text = DateTimeFormatter.ofPattern(pattern).format(instant.atOffset(offset));
    if (text.startsWith("+") || text.startsWith("-")) {
      return; // an offset moved the local year outside 0001..9999; java.time needs a sign there.
    }

    long fast = EventTimestamps.parseCanonical(text);
    long reference = EventTimestamps.parseWithJavaTime(text);

    assertThat(fast).as(text).isEqualTo(reference);
  }

  @Property(tries = 2_000)
  void sqlFormsAgreeWithJavaTime(
      @ForAll @LongRange(min = -62_135_596_800_000L, max = 253_402_300_799_999L) long millis,
      @ForAll @IntRange(min = 0, max = 9) int fractionDigits) {
    String pattern =
        "uuuu-MM-dd HH:mm:ss" + (fractionDigits == 0 ? "" : "." + "S".repeat(fractionDigits));
    String text =
        DateTimeFormatter.ofPattern(pattern)
            .withZone(ZoneOffset.UTC)
            .format(Instant.ofEpochMilli(millis));

    assertThat(EventTimestamps.parseCanonical(text))
        .as(text)
        .isEqualTo(EventTimestamps.parseWithJavaTime(text));
    assertThat(EventTimestamps.parseMillis(text)).isBetween(MIN, MAX);
  }

  @Property(tries = 5_000)
  void theFastPathNeverAcceptsWhatJavaTimeRejects(@ForAll("mutatedTimestamps") String text) {
    long fast = EventTimestamps.parseCanonical(text);
    if (fast != EventTimestamps.INVALID) {
      assertThat(fast).as(text).isEqualTo(EventTimestamps.parseWithJavaTime(text));
    }
  }

  @Property(tries = 2_000)
  void epochDayMatchesLocalDate(@ForAll("dates") LocalDate date) {
    assertThat(EventTimestamps.epochDay(date.getYear(), date.getMonthValue(), date.getDayOfMonth()))
        .isEqualTo(date.toEpochDay());
  }

  @Provide
  Arbitrary<LocalDate> dates() {
    return Arbitraries.longs()
        .between(LocalDate.of(1, 1, 1).toEpochDay(), LocalDate.of(9999, 12, 31).toEpochDay())
        .map(LocalDate::ofEpochDay);
  }

  /**
   * Valid timestamps with one character replaced: digits out of range, wrong separators, stray
   * letters.
   */
  @Provide
  Arbitrary<String> mutatedTimestamps() {
    Arbitrary<String> base =
        Arbitraries.of(
            "2026-11-29T10:15:30.123Z",
            "2024-02-29T23:59:59+05:30",
            "1900-02-28 00:00:00.5",
            "0001-01-01T00:00:00-01:00");
    return Combinators.combine(
            base, Arbitraries.integers().between(0, 40), Arbitraries.chars().ascii())
        .as(
            (text, position, replacement) -> {
              int at = position % text.length();
              return text.substring(0, at) + replacement + text.substring(at + 1);
            });
  }
}
