package dev.tally.runtime.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Typed, validated reads of a {@link ConfigSource}. Every read names its key and default; every
 * problem is recorded instead of thrown, so {@link #throwIfProblems()} can report all of them at
 * once, unknown keys included (a key no feature read is a typo until proven otherwise).
 */
public final class ConfigReader {

  private static final Pattern DURATION = Pattern.compile("(-?\\d+)\\s*(ms|s|m|h|d)");
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kib|mib|gib)?");
  private static final Pattern SECRET =
      Pattern.compile("(?i).*(password|secret|token|credential|jaas|private-key|signature).*");

  private final Map<String, String> values;
  private final Map<String, String> effective = new TreeMap<>();
  private final List<String> passThroughPrefixes = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();

  public ConfigReader(ConfigSource source) {
    this.values = source.values();
  }

  /** A string, or the default when absent or blank. */
  public String string(String key, String defaultValue) {
    String value = raw(key);
    String result = value == null || value.isBlank() ? defaultValue : value.trim();
    effective.put(key, result == null ? "" : result);
    return result;
  }

  /** A string that must be set. */
  public String requiredString(String key) {
    String value = string(key, null);
    if (value == null) {
      problems.add(key + ": must be set");
    }
    return value;
  }

  /** A string, or empty when absent or blank. */
  public Optional<String> optionalString(String key) {
    return Optional.ofNullable(string(key, null));
  }

  /** A comma-separated list (a YAML list is flattened to one); blank items are dropped. */
  public List<String> list(String key, List<String> defaultValue) {
    String value = raw(key);
    List<String> result =
        value == null
            ? defaultValue
            : Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    effective.put(key, String.join(",", result));
    return result;
  }

  /** A boolean: {@code true} or {@code false}. */
  public boolean bool(String key, boolean defaultValue) {
    return parse(
        key,
        defaultValue,
        text -> {
          String lower = text.toLowerCase(Locale.ROOT);
          if (!lower.equals("true") && !lower.equals("false")) {
            throw new IllegalArgumentException("expected true or false");
          }
          return Boolean.parseBoolean(lower);
        });
  }

  /** An integer within {@code [min, max]}. */
  public int integer(String key, int defaultValue, int min, int max) {
    int value =
        parse(
            key,
            defaultValue,
            text -> {
              try {
                return Integer.parseInt(text);
              } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected an integer");
              }
            });
    check(
        value >= min && value <= max,
        key,
        "must be between " + min + " and " + max + ", not " + value);
    return value;
  }

  /** A fraction within {@code [min, max]}. */
  public double fraction(String key, double defaultValue, double min, double max) {
    double value =
        parse(
            key,
            defaultValue,
            text -> {
              try {
                return Double.parseDouble(text);
              } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected a number");
              }
            });
    check(
        value >= min && value <= max,
        key,
        "must be between " + min + " and " + max + ", not " + value);
    return value;
  }

  /**
   * A duration: {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 1d} or ISO-8601 ({@code
   * PT10S}); not negative.
   */
  public Duration duration(String key, Duration defaultValue) {
    Duration value = parse(key, defaultValue, ConfigReader::parseDuration);
    check(value == null || !value.isNegative(), key, "must not be negative, not " + value);
    return value;
  }

  /** A size in bytes: {@code 1048576}, {@code 512KiB}, {@code 1MiB}, {@code 1GiB}. */
  public long bytes(String key, long defaultValue) {
    return parse(key, defaultValue, ConfigReader::parseBytes);
  }

  /** One of an enum's constants, written in any case with {@code -} or {@code _}. */
  public <E extends Enum<E>> E enumValue(String key, Class<E> type, E defaultValue) {
    return parse(
        key,
        defaultValue,
        text -> {
          String name = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
          for (E constant : type.getEnumConstants()) {
            if (constant.name().equals(name)) {
              return constant;
            }
          }
          throw new IllegalArgumentException(
              "expected one of "
                  + Arrays.stream(type.getEnumConstants())
                      .map(c -> c.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                      .collect(Collectors.joining(", ")));
        });
  }

  /**
   * Every key under {@code prefix} (which ends with a dot), with the prefix removed: properties
   * passed through to a client unchanged, such as Kafka's security settings.
   */
  public Map<String, String> passThrough(String prefix) {
    passThroughPrefixes.add(prefix);
    Map<String, String> result = new LinkedHashMap<>();
    values.forEach(
        (key, value) -> {
          if (key.startsWith(prefix) && key.length() > prefix.length()) {
            result.put(key.substring(prefix.length()), value);
            effective.put(key, value);
          }
        });
    return result;
  }

  /** Records a problem with {@code key} unless {@code condition} holds. */
  public void check(boolean condition, String key, String message) {
    if (!condition) {
      problems.add(key + ": " + message);
    }
  }

  /** Records a problem spanning several keys; the message must name them. */
  public void problem(String message) {
    problems.add(message);
  }

  /**
   * Runs a builder that validates as a whole, recording its message as a problem of {@code keys}.
   */
  public <T> T build(String keys, Supplier<T> builder) {
    try {
      return builder.get();
    } catch (IllegalArgumentException e) {
      problems.add(keys + ": " + e.getMessage());
      return null;
    }
  }

  /** Keys present in the source that no feature reads. */
  public List<String> unknownKeys() {
    return values.keySet().stream()
        .filter(key -> !effective.containsKey(key))
        .filter(key -> passThroughPrefixes.stream().noneMatch(key::startsWith))
        .collect(Collectors.toCollection(TreeSet::new))
        .stream()
        .toList();
  }

  /** Every problem so far, unknown keys included. */
  public List<String> problems() {
    List<String> all = new ArrayList<>(problems);
    for (String key : unknownKeys()) {
      all.add(key + ": unknown key (see docs/configuration.md for the keys Tally reads)");
    }
    return all;
  }

  /**
   * @throws ConfigurationException listing every problem
   */
  public void throwIfProblems() {
    List<String> all = problems();
    if (!all.isEmpty()) {
      throw new ConfigurationException(all);
    }
  }

  /**
   * Every key read with its effective value, defaults included; secrets masked. For the start-up
   * log.
   */
  public Map<String, String> effectiveConfiguration() {
    Map<String, String> masked = new TreeMap<>();
    effective.forEach(
        (key, value) -> masked.put(key, isSecret(key) && !value.isEmpty() ? "******" : value));
    return masked;
  }

  /** Whether a key names a secret whose value must never be logged. */
  public static boolean isSecret(String key) {
    return SECRET.matcher(key).matches();
  }

  private String raw(String key) {
    return values.get(key);
  }

  private <T> T parse(String key, T defaultValue, java.util.function.Function<String, T> parser) {
    String text = raw(key);
    if (text == null || text.isBlank()) {
      effective.put(key, defaultValue == null ? "" : String.valueOf(defaultValue));
      return defaultValue;
    }
    try {
      T value = parser.apply(text.trim());
      effective.put(key, String.valueOf(value));
      return value;
    } catch (IllegalArgumentException | DateTimeParseException e) {
      effective.put(key, text);
      problems.add(key + ": \"" + text + "\" is invalid: " + e.getMessage());
      return defaultValue;
    }
  }

  static Duration parseDuration(String text) {
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

  static long parseBytes(String text) {
    Matcher m = SIZE.matcher(text.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("expected a size such as 1048576, 512KiB or 1MiB");
    }
    long amount = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    return switch (unit) {
      case "kib" -> amount * 1024;
      case "mib" -> amount * 1024 * 1024;
      case "gib" -> amount * 1024 * 1024 * 1024;
      default -> amount;
    };
  }
}
