package dev.tally.adapters.iceberg;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** Keeps secrets out of logs: what {@code toString} shows instead of a secret. */
final class Secrets {

  static final String MASK = "****";

  /** Property names whose values are credentials, in Iceberg, AWS and JDBC conventions. */
  private static final Pattern SECRET_KEY =
      Pattern.compile("password|secret|token|credential|access-key|session-key|api-key|auth");

  private Secrets() {}

  /** {@link #MASK} for a set value, {@code null} for an unset one. */
  static String mask(String value) {
    return value == null ? null : MASK;
  }

  /** Whether a property of this name holds a secret. */
  static boolean isSecretKey(String key) {
    return SECRET_KEY.matcher(key.toLowerCase(Locale.ROOT)).find();
  }

  /** The properties, sorted, with every secret value masked. */
  static Map<String, String> masked(Map<String, String> properties) {
    Map<String, String> masked = new TreeMap<>();
    properties.forEach((k, v) -> masked.put(k, isSecretKey(k) ? MASK : v));
    return masked;
  }
}
