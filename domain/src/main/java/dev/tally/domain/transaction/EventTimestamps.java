package dev.tally.domain.transaction;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.ResolverStyle;
import java.util.Optional;

/**
 * Reads the textual {@code event_timestamp} forms of docs/behaviour.md "Input":
 *
 * <ul>
 *   <li>an ISO-8601 instant with {@code Z} or an offset: {@code 2026-11-29T10:15:30.123Z}, {@code
 *       2026-11-29T11:15:30+01:00};
 *   <li>the Flink SQL JSON form, read as UTC: {@code 2026-11-29 10:15:30.123}.
 * </ul>
 *
 * <p>A local date-time with a {@code T} but no offset is rejected: it names no instant. Fractions
 * finer than a millisecond are truncated towards the past, as {@link Instant#toEpochMilli()} does.
 *
 * <p>This is on the per-record path, so the canonical shapes are parsed by hand without allocating;
 * anything else falls back to {@code java.time}, which decides what is valid. Tests check that both
 * agree.
 */
public final class EventTimestamps {

  /**
   * Returned by {@link #parseMillis} for text that is no valid timestamp; no real event time is
   * this small.
   */
  static final long INVALID = Long.MIN_VALUE;

  private static final DateTimeFormatter SQL_FORM =
      new DateTimeFormatterBuilder()
          .parseCaseInsensitive()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .appendLiteral(' ')
          .append(DateTimeFormatter.ISO_LOCAL_TIME)
          .toFormatter()
          .withResolverStyle(ResolverStyle.STRICT);

  private static final int[] DAYS_IN_MONTH = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

  private EventTimestamps() {}

  /**
   * Parses {@code text} as an event timestamp, or returns empty when it is in none of the accepted
   * forms.
   */
  public static Optional<Instant> parse(String text) {
    long millis = parseMillis(text);
    return millis == INVALID ? Optional.empty() : Optional.of(Instant.ofEpochMilli(millis));
  }

  /** Epoch milliseconds of {@code text}, or {@link #INVALID}. */
  static long parseMillis(String text) {
    long fast = parseCanonical(text);
    return fast != INVALID ? fast : parseWithJavaTime(text);
  }

  static long parseWithJavaTime(String text) {
    try {
      Instant instant =
          text.indexOf('T') >= 0 || text.indexOf('t') >= 0
              ? OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant()
              : LocalDateTime.parse(text, SQL_FORM).toInstant(ZoneOffset.UTC);
      return instant.toEpochMilli();
    } catch (DateTimeException | ArithmeticException e) {
      return INVALID;
    }
  }

  /**
   * {@code yyyy-MM-dd('T'|' ')HH:mm:ss[.f{1,9}]} then {@code Z} or {@code ±HH:mm} after a {@code
   * T}, nothing after a space. Returns {@link #INVALID} for anything else, including out-of-range
   * fields, leaving the verdict to java.time.
   */
  static long parseCanonical(String s) {
    int n = s.length();
    if (n < 19
        || s.charAt(4) != '-'
        || s.charAt(7) != '-'
        || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      return INVALID;
    }
    char separator = s.charAt(10);
    if (separator != 'T' && separator != ' ') {
      return INVALID;
    }
    int year = digits(s, 0, 4);
    int month = digits(s, 5, 2);
    int day = digits(s, 8, 2);
    int hour = digits(s, 11, 2);
    int minute = digits(s, 14, 2);
    int second = digits(s, 17, 2);
    if ((year | month | day | hour | minute | second) < 0
        || month < 1
        || month > 12
        || day < 1
        || day > daysInMonth(year, month)
        || hour > 23
        || minute > 59
        || second > 59) {
      return INVALID;
    }
    int pos = 19;
    int millis = 0;
    if (pos < n && s.charAt(pos) == '.') {
      pos++;
      int fractionDigits = 0;
      while (pos < n && fractionDigits < 9) {
        int d = s.charAt(pos) - '0';
        if (d < 0 || d > 9) {
          break;
        }
        if (fractionDigits < 3) {
          millis = millis * 10 + d;
        }
        fractionDigits++;
        pos++;
      }
      if (fractionDigits == 0) {
        return INVALID;
      }
      for (int i = fractionDigits; i < 3; i++) {
        millis *= 10;
      }
    }
    int offsetSeconds = 0;
    if (separator == 'T') {
      if (pos >= n) {
        return INVALID;
      }
      char c = s.charAt(pos);
      if (c == 'Z') {
        pos++;
      } else if ((c == '+' || c == '-') && n - pos == 6 && s.charAt(pos + 3) == ':') {
        int offsetHours = digits(s, pos + 1, 2);
        int offsetMinutes = digits(s, pos + 4, 2);
        if ((offsetHours | offsetMinutes) < 0 || offsetHours > 17 || offsetMinutes > 59) {
          return INVALID;
        }
        offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (c == '-' ? -1 : 1);
        pos += 6;
      } else {
        return INVALID;
      }
    }
    if (pos != n) {
      return INVALID;
    }
    long epochSeconds =
        epochDay(year, month, day) * 86_400L
            + hour * 3_600L
            + minute * 60L
            + second
            - offsetSeconds;
    return epochSeconds * 1_000L + millis;
  }

  /** The decimal value of {@code count} ASCII digits at {@code from}, or -1 if any is no digit. */
  private static int digits(String s, int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; i++) {
      int d = s.charAt(i) - '0';
      if (d < 0 || d > 9) {
        return -1;
      }
      value = value * 10 + d;
    }
    return value;
  }

  private static int daysInMonth(int year, int month) {
    if (month == 2 && isLeap(year)) {
      return 29;
    }
    return DAYS_IN_MONTH[month - 1];
  }

  private static boolean isLeap(int year) {
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  }

  /**
   * Days since 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse, H. Hinnant).
   */
  static long epochDay(int year, int month, int day) {
    long y = month <= 2 ? year - 1 : year;
    long era = Math.floorDiv(y, 400);
    long yearOfEra = y - era * 400;
    long dayOfYear = (153L * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146_097 + dayOfEra - 719_468;
  }
}
