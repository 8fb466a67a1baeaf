package dev.tally.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.runtime.TallyMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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

  /**
   * Prints the effective configuration of {@code config}, then runs its (bounded) job, capturing
   * every log line of this JVM meanwhile: what a secret must never reach.
   */
  public static Shown printConfigThenRun(Function<String, String> environment, Path config)
      throws Exception {
    try (CapturedLogs captured = new CapturedLogs()) {
      String printed = run(environment, "--config", config.toString(), "--print-config");
      String output = run(environment, "--config", config.toString());
      return new Shown(printed, captured.text() + output);
    }
  }

  /**
   * What a user sees of a job.
   *
   * @param effectiveConfiguration what {@code --print-config} printed
   * @param logs the log lines (INFO and above) and the output of the job's run
   */
  public record Shown(String effectiveConfiguration, String logs) {}
}
