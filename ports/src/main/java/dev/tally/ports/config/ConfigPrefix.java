package dev.tally.ports.config;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The declaration of a family of keys passed through to a client unchanged, e.g. {@code
 * kafka.properties.security.protocol}: every key under {@link #name()} is read, with the prefix
 * removed. The sub-keys belong to the client, so their secrecy is judged by their names.
 *
 * @param name the prefix, ending with a dot
 * @param description what the sub-keys are for (Markdown)
 */
public record ConfigPrefix(String name, String description) {

  /** Names of credentials in the conventions of Kafka (JAAS), Iceberg, AWS and JDBC clients. */
  private static final Pattern SECRET_NAME =
      Pattern.compile(
          "password|secret|token|credential|jaas|private-key|signature|access-key|session-key"
              + "|api-key|auth");

  public ConfigPrefix {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    if (!name.endsWith(".") || name.length() < 2) {
      throw new IllegalArgumentException("a prefix ends with a dot: " + name);
    }
  }

  /** Whether a sub-key (full name or the part after the prefix) names a secret. */
  public static boolean isSecretName(String key) {
    return SECRET_NAME.matcher(key.toLowerCase(Locale.ROOT)).find();
  }

  @Override
  public String toString() {
    return name;
  }
}
