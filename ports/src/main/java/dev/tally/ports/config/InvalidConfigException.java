package dev.tally.ports.config;

import java.util.List;

/**
 * A feature's configuration breaks its declarations; {@link #problems()} lists every problem, each
 * naming its key.
 */
public final class InvalidConfigException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  /**
   * @param what the feature, for the message, e.g. {@code "Kafka source config"}
   * @param problems every problem, each naming its key; not empty
   */
  public InvalidConfigException(String what, List<String> problems) {
    super("invalid " + what + ": " + String.join("; ", problems));
    this.problems = List.copyOf(problems);
  }

  /** Every problem, each naming its key. */
  public List<String> problems() {
    return problems;
  }

  /**
   * @throws InvalidConfigException when {@code problems} is not empty
   */
  public static void throwIfAny(String what, List<String> problems) {
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(what, problems);
    }
  }
}
