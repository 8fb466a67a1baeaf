package dev.tally.ports.config;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The declaration of one configuration key: its name, type, default, allowed values, description
 * and secrecy, in one place. The feature that owns the key declares it as a constant; {@link
 * ConfigReader} reads it, the feature's {@code *Config} record checks values against it with {@link
 * #problems}, and the reference documentation is checked against it.
 *
 * <p>Immutable: every {@code with}-style method returns a new declaration.
 *
 * @param <T> the type of the key's value
 */
public final class ConfigKey<T> {

  private final String name;
  private final ValueType<T> type;
  private final T defaultValue;
  private final String defaultDescribed;
  private final boolean required;
  private final boolean secret;
  private final String description;
  private final List<Check<T>> checks;

  private record Check<T>(Predicate<T> allowed, Function<T, String> problem) {}

  private ConfigKey(
      String name,
      ValueType<T> type,
      T defaultValue,
      String defaultDescribed,
      boolean required,
      boolean secret,
      String description,
      List<Check<T>> checks) {
    this.name = name;
    this.type = type;
    this.defaultValue = defaultValue;
    this.defaultDescribed = defaultDescribed;
    this.required = required;
    this.secret = secret;
    this.description = description;
    this.checks = List.copyOf(checks);
  }

  /** A key of the given type, optional, without default or description yet. */
  public static <T> ConfigKey<T> of(String name, ValueType<T> type) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank() || name.endsWith(".")) {
      throw new IllegalArgumentException("a key name is not blank and ends with no dot: " + name);
    }
    return new ConfigKey<>(
        name, Objects.requireNonNull(type, "type"), null, null, false, false, "", List.of());
  }

  /** A text key. */
  public static ConfigKey<String> string(String name) {
    return of(name, ValueType.string());
  }

  /** A boolean key. */
  public static ConfigKey<Boolean> bool(String name) {
    return of(name, ValueType.bool());
  }

  /** An integer key. */
  public static ConfigKey<Integer> integer(String name) {
    return of(name, ValueType.integer());
  }

  /** A decimal key. */
  public static ConfigKey<Double> decimal(String name) {
    return of(name, ValueType.decimal());
  }

  /** A duration key; a duration is never negative. */
  public static ConfigKey<Duration> duration(String name) {
    ValueType<Duration> type = ValueType.duration();
    return of(name, type)
        .check(
            value -> !value.isNegative(),
            value -> "must not be negative, not " + type.format(value));
  }

  /** A size in bytes. */
  public static ConfigKey<Long> bytes(String name) {
    return of(name, ValueType.bytes());
  }

  /** A size in bytes that fits a Java array. */
  public static ConfigKey<Integer> arrayBytes(String name) {
    return of(name, ValueType.arrayBytes());
  }

  /** A list key. */
  public static ConfigKey<List<String>> list(String name) {
    return of(name, ValueType.list());
  }

  /** An instant key. */
  public static ConfigKey<Instant> instant(String name) {
    return of(name, ValueType.instant());
  }

  /** A key holding one of an enum's constants. */
  public static <E extends Enum<E>> ConfigKey<E> enumeration(String name, Class<E> type) {
    return of(name, ValueType.enumeration(type));
  }

  /** The value when the key is absent or blank. */
  public ConfigKey<T> defaultValue(T value) {
    return new ConfigKey<>(
        name,
        type,
        Objects.requireNonNull(value, "value"),
        defaultDescribed,
        required,
        secret,
        description,
        checks);
  }

  /**
   * Declares a default that the feature derives from other keys, in words for the documentation
   * (the declaration itself then has no {@link #defaultValue()}).
   */
  public ConfigKey<T> defaultDescribed(String words) {
    return new ConfigKey<>(
        name,
        type,
        defaultValue,
        Objects.requireNonNull(words, "words"),
        required,
        secret,
        description,
        checks);
  }

  /** The key must be set: a missing or blank value is a problem. */
  public ConfigKey<T> required() {
    return new ConfigKey<>(
        name, type, defaultValue, defaultDescribed, true, secret, description, checks);
  }

  /** The value is a secret: masked wherever the configuration is shown. */
  public ConfigKey<T> secret() {
    return new ConfigKey<>(
        name, type, defaultValue, defaultDescribed, required, true, description, checks);
  }

  /** What the key means, as the reference documentation shows it (Markdown). */
  public ConfigKey<T> description(String text) {
    return new ConfigKey<>(
        name,
        type,
        defaultValue,
        defaultDescribed,
        required,
        secret,
        Objects.requireNonNull(text, "text"),
        checks);
  }

  /** A rule a set value must keep; {@code problem} says what is wrong, without the key's name. */
  public ConfigKey<T> check(Predicate<T> allowed, Function<T, String> problem) {
    List<Check<T>> more = new ArrayList<>(checks);
    more.add(new Check<>(allowed, problem));
    return new ConfigKey<>(
        name, type, defaultValue, defaultDescribed, required, secret, description, more);
  }

  /** The value must lie in {@code [min, max]}; {@code T} must be {@link Comparable}. */
  public ConfigKey<T> between(T min, T max) {
    return check(
        value -> compare(value, min) >= 0 && compare(value, max) <= 0,
        value ->
            "must be between "
                + type.format(min)
                + " and "
                + type.format(max)
                + ", not "
                + type.format(value));
  }

  /** The value must be at least {@code min}; {@code T} must be {@link Comparable}. */
  public ConfigKey<T> atLeast(T min) {
    return check(
        value -> compare(value, min) >= 0,
        value -> "must be at least " + type.format(min) + ", not " + type.format(value));
  }

  @SuppressWarnings("unchecked")
  private static <T> int compare(T value, T bound) {
    return ((Comparable<T>) value).compareTo(bound);
  }

  /** The key's full name, e.g. {@code kafka.source.topics}. */
  public String name() {
    return name;
  }

  /** How the key's text is parsed and written. */
  public ValueType<T> type() {
    return type;
  }

  /** The declared default, or {@code null} when there is none. */
  public T defaultValue() {
    return defaultValue;
  }

  /** Whether the key must be set. */
  public boolean isRequired() {
    return required;
  }

  /** Whether the value is a secret. */
  public boolean isSecret() {
    return secret;
  }

  /** What the key means. */
  public String description() {
    return description;
  }

  /**
   * The default as the documentation shows it: the words of {@link #defaultDescribed}, the declared
   * default in code font, {@code required}, or empty when an absent key means "not set".
   */
  public String defaultText() {
    if (defaultDescribed != null) {
      return defaultDescribed;
    }
    if (defaultValue != null) {
      return "`" + type.format(defaultValue) + "`";
    }
    return required ? "required" : "";
  }

  /**
   * Every problem of {@code value} (may be {@code null}: not set), each as {@code "name: what is
   * wrong"}; empty when the value is allowed.
   */
  public List<String> problems(T value) {
    if (value == null || value instanceof String text && text.isBlank()) {
      return required ? List.of(name + ": must be set") : List.of();
    }
    List<String> problems = new ArrayList<>();
    for (Check<T> check : checks) {
      if (!check.allowed().test(value)) {
        problems.add(name + ": " + check.problem().apply(value));
      }
    }
    return problems;
  }

  /** Adds the {@link #problems} of {@code value} to {@code problems}. */
  public void check(T value, List<String> problems) {
    problems.addAll(problems(value));
  }

  @Override
  public String toString() {
    return name;
  }
}
