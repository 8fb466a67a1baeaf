package dev.tally.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One command line, the same arguments for a local run and for {@code flink run}. */
class TallyJobLauncherTest {

  private static final Path CONFIG = Path.of("work", "tally.yaml");

  @Test
  void programArgumentsAreTheConfigurationThenEveryOverride() {
    TallyJobLauncher job =
        TallyJobLauncher.of(CONFIG).overrides(List.of("a=1")).overrides(List.of("b=2"));

    assertThat(job.programArguments())
        .containsExactly("--config", CONFIG.toString(), "--set", "a=1", "--set", "b=2");
  }

  @Test
  void leadingArgumentsComeFirst() {
    TallyJobLauncher job =
        TallyJobLauncher.of(CONFIG).leadingArguments(List.of("sql", "--file", "seed.sql"));

    assertThat(job.programArguments())
        .containsExactly("sql", "--file", "seed.sql", "--config", CONFIG.toString());
  }

  @Test
  void aLocalRunStartsTallyMainOnTheJobJarAndTheFlinkLibrariesWithItsWebPort(@TempDir Path dir)
      throws Exception {
    Path jar = dir.resolve("job.jar");
    Path lib = dir.resolve("flink-lib");
    ProcessBuilder process =
        TallyJobLauncher.of(CONFIG)
            .overrides(List.of("a=1"))
            .locally(jar, lib)
            .maxHeap("1536m")
            .webPort(18081)
            .temporaryDirectory(dir.resolve("tmp"))
            .environment(Map.of("AWS_REGION", "us-east-1"))
            .process(dir.resolve("job.log"));

    List<String> command = process.command();
    assertThat(command.get(0)).endsWith("java");
    assertThat(command)
        .containsSubsequence("-Xmx1536m", "-Djava.io.tmpdir=" + dir.resolve("tmp"))
        .contains("-Dlog4j2.configurationFile=" + dir.resolve("job-log4j2.properties").toUri())
        .containsSubsequence(
            "-cp",
            jar + File.pathSeparator + lib.resolve("*"),
            TallyJobLauncher.MAIN_CLASS,
            "--local",
            "--web-port",
            "18081",
            "--config",
            CONFIG.toString(),
            "--set",
            "a=1");
    assertThat(command.subList(command.indexOf(TallyJobLauncher.MAIN_CLASS), command.size()))
        .hasSize(8);
    assertThat(process.environment()).containsEntry("AWS_REGION", "us-east-1");
    assertThat(dir.resolve("job-log4j2.properties")).isNotEmptyFile();
    assertThat(dir.resolve("tmp")).isDirectory();
  }

  @Test
  void aLocalRunPassesItsMetricsPortOnlyWhenGiven(@TempDir Path dir) {
    TallyJobLauncher.LocalRun run =
        TallyJobLauncher.of(CONFIG).locally(dir.resolve("job.jar"), dir.resolve("flink-lib"));
    Path log = dir.resolve("log4j2.properties");

    assertThat(run.command(log)).doesNotContain("--metrics-port");
    assertThat(run.metricsPort(19249).command(log))
        .containsSubsequence(
            "--local", "--web-port", "8081", "--metrics-port", "19249", "--config");
  }

  @Test
  void anotherMainClassRunsBehindTheJobJarWithItsOwnClassPath(@TempDir Path dir) {
    Path jar = dir.resolve("job.jar");
    Path lib = dir.resolve("flink-lib");
    Path extra = dir.resolve("classes");
    List<String> command =
        TallyJobLauncher.of(CONFIG)
            .leadingArguments(List.of("--rows-per-second", "10"))
            .locally(jar, lib)
            .mainClass("example.Main", List.of(extra))
            .process(dir.resolve("job.log"))
            .command();

    assertThat(command)
        .containsSubsequence(
            "-cp",
            String.join(
                File.pathSeparator, jar.toString(), lib.resolve("*").toString(), extra.toString()),
            "example.Main",
            "--rows-per-second",
            "10",
            "--local");
  }
}
