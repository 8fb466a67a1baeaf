package dev.tally.stack;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;

/**
 * A duration option of the tools' command lines, as people write it: {@code 500ms}, {@code 10s},
 * {@code 5m}, or a plain number of seconds.
 */
public final class DurationConverter implements ITypeConverter<Duration> {

  /** Reads {@code text}; a number without a unit is seconds. */
  @Override
  public Duration convert(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
    }
    if (t.endsWith("m")) {
      return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
    }
    return Duration.ofSeconds(Long.parseLong(t.endsWith("s") ? t.substring(0, t.length() - 1) : t));
  }
}
