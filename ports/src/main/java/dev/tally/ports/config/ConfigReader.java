package dev.tally.ports.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Reads declared keys ({@link ConfigKey}, {@link ConfigPrefix}) from a flat map of dotted keys. It
 * parses each value by its declared type and falls back to the declared default; every problem is
 * recorded instead of thrown, so {@link #problems()} reports all of them at once, unknown keys
 * included (a key no feature read is a typo until proven otherwise). Which values are allowed is
 * the business of each feature's {@code *Config} record, which checks them against the same
 * declarations whether it is read here or built in code; {@link #build} collects its problems.
 */
public final class ConfigReader {

  private static final String MASK = "******";

  private final Map<String, String> values;
  private final Map<String, String> effective = new TreeMap<>();
  private final Set<String> secrets = new HashSet<>();
  private final List<String> prefixes = new ArrayList<>();
  private final Set<String> problems = new LinkedHashSet<>();

  /**
   * @param values the configuration as flat key-value pairs
   */
  public ConfigReader(Map<String, String> values) {
    this.values = Map.copyOf(Objects.requireNonNull(values, "values"));
  }

  /** Whether {@code key} has a non-blank value. */
  public boolean isSet(ConfigKey<?> key) {
    String text = values.get(key.name());
    return text != null && !text.isBlank();
  }

  /**
   * The value of {@code key}: parsed by its type, or its declared default when absent or blank
   * (also when unparseable, which is recorded as a problem). May be {@code null} for a key without
   * default.
   */
  public <T> T get(ConfigKey<T> key) {
    return get(key, key.defaultValue());
  }

  /**
   * The value of {@code key}, or {@code fallback} when absent or blank: for defaults a feature
   * derives from other keys (see {@link ConfigKey#defaultDescribed}).
   */
  public <T> T get(ConfigKey<T> key, T fallback) {
    if (key.isSecret()) {
      secrets.add(key.name());
    }
    String text = values.get(key.name());
    if (text == null || text.isBlank()) {
      effective.put(key.name(), fallback == null ? "" : key.type().format(fallback));
      return fallback;
    }
    try {
      T value = key.type().parse(text.trim());
      effective.put(key.name(), key.type().format(value));
      return value;
    } catch (IllegalArgumentException e) {
      effective.put(key.name(), text);
      problems.add(key.name() + ": \"" + text + "\" is invalid: " + e.getMessage());
      return fallback;
    }
  }

  /**
   * {@link #get} and the key's own {@link ConfigKey#problems}: for a feature whose value type does
   * not check the declarations itself.
   */
  public <T> T getChecked(ConfigKey<T> key) {
    T value = get(key);
    problems.addAll(key.problems(value));
    return value;
  }

  /** Every key under {@code prefix}, with the prefix removed. */
  public Map<String, String> get(ConfigPrefix prefix) {
    prefixes.add(prefix.name());
    Map<String, String> result = new LinkedHashMap<>();
    new TreeMap<>(values)
        .forEach(
            (key, value) -> {
              if (key.startsWith(prefix.name()) && key.length() > prefix.name().length()) {
                result.put(key.substring(prefix.name().length()), value);
                effective.put(key, value);
                if (ConfigPrefix.isSecretName(key)) {
                  secrets.add(key);
                }
              }
            });
    return result;
  }

  /** Records a problem; the message starts with the key or keys it is about. */
  public void problem(String message) {
    problems.add(message);
  }

  /**
   * Runs a constructor or builder that validates as a whole and returns its result, or records its
   * problems and returns {@code null}. An {@link InvalidConfigException} names its keys itself; any
   * other {@link IllegalArgumentException} is recorded as a problem of {@code keys}.
   */
  public <T> T build(String keys, Supplier<T> builder) {
    try {
      return builder.get();
    } catch (InvalidConfigException e) {
      problems.addAll(e.problems());
    } catch (IllegalArgumentException e) {
      problems.add(keys + ": " + e.getMessage());
    }
    return null;
  }

  /** Keys present in the configuration that no feature reads, sorted. */
  public List<String> unknownKeys() {
    return values.keySet().stream()
        .filter(key -> !effective.containsKey(key))
        .filter(key -> prefixes.stream().noneMatch(key::startsWith))
        .sorted()
        .toList();
  }

  /** Every problem so far, each once, unknown keys last. */
  public List<String> problems() {
    List<String> all = new ArrayList<>(problems);
    for (String key : unknownKeys()) {
      all.add(key + ": unknown key (see docs/configuration.md for the keys Tally reads)");
    }
    return all;
  }

  /**
   * Every key read with its effective value, defaults included, sorted; secrets masked. For the
   * start-up log.
   */
  public Map<String, String> effectiveConfiguration() {
    Map<String, String> masked = new TreeMap<>();
    effective.forEach(
        (key, value) -> masked.put(key, secrets.contains(key) && !value.isEmpty() ? MASK : value));
    return masked;
  }
}
