package dev.tally.runtime.config;

import java.util.List;

/** The configuration has problems; the message lists every one, each naming its key. */
public final class ConfigurationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  public ConfigurationException(List<String> problems) {
    super(
        "Invalid configuration ("
            + problems.size()
            + (problems.size() == 1 ? " problem" : " problems")
            + "):\n  - "
            + String.join("\n  - ", problems));
    this.problems = List.copyOf(problems);
  }

  /** Every problem, each naming its key. */
  public List<String> problems() {
    return problems;
  }
}
