package dev.tally.ports.config;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * How a key's text is parsed into a value, and a value written back as text (in the documentation,
 * the effective configuration and problem messages), so that both use one notation.
 *
 * @param <T> the value's type
 */
public final class ValueType<T> {

  private static final Pattern DURATION = Pattern.compile("(-?\\d+)\\s*(ms|s|m|h|d)");
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kib|mib|gib)?");
  private static final long KIB = 1024;
  private static final long MIB = KIB * 1024;
  private static final long GIB = MIB * 1024;

  private final Function<String, T> parser;
  private final Function<T, String> formatter;

  private ValueType(Function<String, T> parser, Function<T, String> formatter) {
    this.parser = parser;
    this.formatter = formatter;
  }

  /**
   * Parses trimmed, non-blank text.
   *
   * @throws IllegalArgumentException saying what was expected
   */
  public T parse(String text) {
    try {
      return parser.apply(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** The value in the notation {@link #parse} reads. */
  public String format(T value) {
    return formatter.apply(Objects.requireNonNull(value, "value"));
  }

  /** Text as it is. */
  public static ValueType<String> string() {
    return new ValueType<>(Function.identity(), Function.identity());
  }

  /** {@code true} or {@code false}, in any case. */
  public static ValueType<Boolean> bool() {
    return new ValueType<>(
        text -> {
          String lower = text.toLowerCase(Locale.ROOT);
          if (!lower.equals("true") && !lower.equals("false")) {
            throw new IllegalArgumentException("expected true or false");
          }
          return Boolean.parseBoolean(lower);
        },
        String::valueOf);
  }

  /** A 32-bit integer. */
  public static ValueType<Integer> integer() {
    return number(Integer::valueOf, "an integer");
  }

  /** A decimal number. */
  public static ValueType<Double> decimal() {
    return number(Double::valueOf, "a number");
  }

  private static <N extends Number> ValueType<N> number(
      Function<String, N> parser, String expected) {
    return new ValueType<>(
        text -> {
          try {
            return parser.apply(text);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected " + expected, e);
          }
        },
        String::valueOf);
  }

  /**
   * A duration: {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 1d} or ISO-8601 ({@code
   * PT10S}); written back in the largest whole unit.
   */
  public static ValueType<Duration> duration() {
    return new ValueType<>(ValueType::parseDuration, ValueType::formatDuration);
  }

  /**
   * A size in bytes: {@code 1048576}, {@code 512KiB}, {@code 1MiB}, {@code 1GiB}; written back in
   * the largest whole unit.
   */
  public static ValueType<Long> bytes() {
    return new ValueType<>(ValueType::parseBytes, ValueType::formatBytes);
  }

  /** A size in bytes, as {@link #bytes()}, that fits a Java array: at most 2 GiB - 1. */
  public static ValueType<Integer> arrayBytes() {
    return new ValueType<>(
        text -> {
          long bytes = parseBytes(text);
          if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("expected less than 2GiB");
          }
          return (int) bytes;
        },
        value -> formatBytes((long) value));
  }

  /** A comma-separated list (a YAML list is flattened to one); blank items are dropped. */
  public static ValueType<List<String>> list() {
    return new ValueType<>(
        text -> Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList(),
        value -> String.join(",", value));
  }

  /** An ISO-8601 instant such as {@code 2026-11-29T00:00:00Z}. */
  public static ValueType<Instant> instant() {
    return new ValueType<>(
        text -> {
          try {
            return Instant.parse(text);
          } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                "expected an ISO-8601 instant such as 2026-11-29T00:00:00Z");
          }
        },
        Instant::toString);
  }

  /** One of an enum's constants, written in any case with {@code -} or {@code _}. */
  public static <E extends Enum<E>> ValueType<E> enumeration(Class<E> type) {
    return new ValueType<>(
        text -> {
          String name = text.toUpperCase(Locale.ROOT).replace('-', '_');
          for (E constant : type.getEnumConstants()) {
            if (constant.name().equals(name)) {
              return constant;
            }
          }
          throw new IllegalArgumentException(
              "expected one of "
                  + Arrays.stream(type.getEnumConstants())
                      .map(ValueType::formatEnum)
                      .collect(Collectors.joining(", ")));
        },
        ValueType::formatEnum);
  }

  private static String formatEnum(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static Duration parseDuration(String text) {
    if (text.startsWith("P") || text.startsWith("p") || text.startsWith("-P")) {
      return Duration.parse(text);
    }
    Matcher m = DURATION.matcher(text.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "expected a duration such as 250ms, 10s, 5m, 1h, 1d or PT10S");
    }
    long amount = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      case "h" -> Duration.ofHours(amount);
      default -> Duration.ofDays(amount);
    };
  }

  private static String formatDuration(Duration value) {
    if (value.getNano() % 1_000_000 != 0) {
      return value.toString();
    }
    long millis = value.toMillis();
    if (millis == 0) {
      return "0s";
    }
    long[] units = {86_400_000, 3_600_000, 60_000, 1_000};
    String[] names = {"d", "h", "m", "s"};
    for (int i = 0; i < units.length; i++) {
      if (millis % units[i] == 0) {
        return millis / units[i] + names[i];
      }
    }
    return millis + "ms";
  }

  private static long parseBytes(String text) {
    Matcher m = SIZE.matcher(text.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("expected a size such as 1048576, 512KiB or 1MiB");
    }
    long amount = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    return switch (unit) {
      case "kib" -> amount * KIB;
      case "mib" -> amount * MIB;
      case "gib" -> amount * GIB;
      default -> amount;
    };
  }

  private static String formatBytes(Long value) {
    if (value != 0) {
      if (value % GIB == 0) {
        return value / GIB + "GiB";
      }
      if (value % MIB == 0) {
        return value / MIB + "MiB";
      }
      if (value % KIB == 0) {
        return value / KIB + "KiB";
      }
    }
    return Long.toString(value);
  }
}
