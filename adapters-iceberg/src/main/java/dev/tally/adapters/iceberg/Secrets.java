package dev.tally.adapters.iceberg;

import dev.tally.ports.config.ConfigPrefix;
import java.util.Map;
import java.util.TreeMap;

/** Keeps secrets out of logs: what {@code toString} shows instead of a secret. */
final class Secrets {

  static final String MASK = "****";

  private Secrets() {}

  /** {@link #MASK} for a set value, {@code null} for an unset one. */
  static String mask(String value) {
    return value == null ? null : MASK;
  }

  /** Whether a property of this name holds a secret. */
  static boolean isSecretKey(String key) {
    return ConfigPrefix.isSecretName(key);
  }

  /** The properties, sorted, with every secret value masked. */
  static Map<String, String> masked(Map<String, String> properties) {
    Map<String, String> masked = new TreeMap<>();
    properties.forEach((k, v) -> masked.put(k, isSecretKey(k) ? MASK : v));
    return masked;
  }
}
