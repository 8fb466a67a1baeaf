package dev.tally.runtime.cli;

import java.io.PrintStream;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a command reads and writes besides its arguments: the environment ({@code ${NAME}} in the
 * configuration and in scripts) and its output and error streams. {@code main} passes the
 * process's; tests pass their own, to run a command in their JVM and read what it printed.
 */
public record Terminal(Function<String, String> environment, PrintStream out, PrintStream err) {

  /** Checks that each part is given. */
  public Terminal {
    Objects.requireNonNull(environment, "environment");
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(err, "err");
  }
}
