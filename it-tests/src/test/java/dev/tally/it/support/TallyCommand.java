package dev.tally.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.runtime.TallyMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

/** Tally's command line, run in the test JVM as a user runs it. */
public final class TallyCommand {

  private TallyCommand() {}

  /**
   * Runs TallyMain with {@code environment} as its environment; returns what it printed, fails on a
   * non-zero exit code. A bounded job returns once it has finished.
   */
  public static String run(Function<String, String> environment, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = TallyMain.run(args, environment, o, e);
    }
    String printed = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    assertThat(code).as("exit code of tally %s: %s", List.of(args), printed).isZero();
    return printed;
  }
}
