package dev.tally.runtime.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * Configuration as a flat map of dotted keys: one YAML file (nested maps are flattened, {@code
 * kafka: {topic: x}} becomes {@code kafka.topic}), then {@code --set key=value} overrides, then
 * {@code ${NAME}} / {@code ${NAME:-default}} substitution from the environment in every value.
 * Lists stay lists (comma-joined), so {@code topics: [a, b]} and {@code --set
 * kafka.source.topics=a,b} mean the same.
 *
 * <p>Secrets belong in the environment and reach the configuration only through {@code ${...}};
 * they are never logged (see {@link dev.tally.ports.config.ConfigReader#effectiveConfiguration()}).
 */
public final class ConfigSource {

  private static final Pattern ENV_REFERENCE =
      Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?}");

  private final Map<String, String> values;

  private ConfigSource(Map<String, String> values) {
    this.values = values;
  }

  /** The flat key-value view, sorted by key. */
  public Map<String, String> values() {
    return values;
  }

  /**
   * Loads {@code yaml} (may be null: defaults only), applies {@code overrides} ({@code key=value})
   * and resolves {@code ${ENV}} references with {@code environment}.
   *
   * @throws ConfigurationException listing every problem: unreadable YAML, malformed overrides,
   *     missing variables
   */
  public static ConfigSource load(
      Path yaml, List<String> overrides, Function<String, String> environment) {
    List<String> problems = new ArrayList<>();
    Map<String, String> flat = new TreeMap<>();
    if (yaml != null) {
      try (Reader reader = Files.newBufferedReader(yaml, StandardCharsets.UTF_8)) {
        Object document =
            new Load(LoadSettings.builder().setLabel(yaml.toString()).build())
                .loadFromReader(reader);
        if (document instanceof Map<?, ?> map) {
          flatten("", map, flat, problems);
        } else if (document != null) {
          problems.add(
              yaml
                  + ": the top level must be a mapping of keys, not "
                  + document.getClass().getSimpleName());
        }
      } catch (IOException e) {
        problems.add(yaml + ": cannot be read: " + e.getMessage());
      } catch (YamlEngineException e) {
        problems.add(yaml + ": is not valid YAML: " + e.getMessage());
      }
    }
    for (String override : overrides) {
      int eq = override.indexOf('=');
      if (eq <= 0) {
        problems.add("--set " + override + ": expected key=value");
      } else {
        flat.put(override.substring(0, eq).trim(), override.substring(eq + 1));
      }
    }
    Map<String, String> resolved = new TreeMap<>();
    flat.forEach((key, value) -> resolved.put(key, substitute(key, value, environment, problems)));
    if (!problems.isEmpty()) {
      throw new ConfigurationException(problems);
    }
    return new ConfigSource(resolved);
  }

  /** A source made of the given flat values, for tests and programmatic use. */
  public static ConfigSource of(Map<String, String> values) {
    return new ConfigSource(new TreeMap<>(values));
  }

  private static void flatten(
      String prefix, Map<?, ?> map, Map<String, String> out, List<String> problems) {
    for (Map.Entry<?, ?> entry : map.entrySet()) {
      String key = prefix + entry.getKey();
      Object value = entry.getValue();
      if (value instanceof Map<?, ?> nested) {
        flatten(key + ".", nested, out, problems);
      } else if (value instanceof List<?> list) {
        List<String> items = new ArrayList<>();
        for (Object item : list) {
          if (item instanceof Map<?, ?> || item instanceof List<?>) {
            problems.add(key + ": list items must be plain values");
          } else {
            items.add(String.valueOf(item));
          }
        }
        out.put(key, String.join(",", items));
      } else {
        out.put(key, value == null ? "" : String.valueOf(value));
      }
    }
  }

  private static String substitute(
      String key, String value, Function<String, String> environment, List<String> problems) {
    Matcher matcher = ENV_REFERENCE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String name = matcher.group(1);
      String replacement = environment.apply(name);
      if (replacement == null) {
        replacement = matcher.group(3);
      }
      if (replacement == null) {
        problems.add(
            key
                + ": environment variable "
                + name
                + " is not set and has no default (${"
                + name
                + ":-…})");
        replacement = "";
      }
      matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    matcher.appendTail(out);
    return out.toString();
  }
}
