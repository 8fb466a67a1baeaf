package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ThreadCpuTest {

  /** A {@code stat} line as the kernel writes it, with the given user and system ticks. */
  private static String stat(int tid, String name, long utime, long stime) {
    return tid
        + " ("
        + name
        + ") R 100 100 100 0 -1 4194368 2048 0 0 0 "
        + utime
        + " "
        + stime
        + " 0 0 20 0 40 0 3008913 5353472 1025\n";
  }

  @Test
  void aThreadNameWithSpacesAndParenthesesDoesNotShiftTheCpuFields() {
    assertThat(ThreadCpu.parseStat(stat(7, "Source: Kafka (1", 1234, 56)))
        .contains(new ThreadCpu.Sample("Source: Kafka (1", 1290));
  }

  @Test
  void aLineWithoutItsCpuFieldsIsNoSample() {
    assertThat(ThreadCpu.parseStat("7 (main) R 100 100")).isEmpty();
    assertThat(ThreadCpu.parseStat("")).isEmpty();
  }

  @Test
  void theSubtasksOfOneOperatorAndThePoolsThreadsFormOneGroupLargestFirst(@TempDir Path tasks)
      throws IOException {
    write(tasks, 11, stat(11, "Dedupe and aggr", 3000, 500));
    write(tasks, 12, stat(12, "Dedupe and aggr", 2800, 700));
    write(tasks, 13, stat(13, "C2 CompilerThre", 1000, 0));
    write(tasks, 14, stat(14, "GC Thread#0", 200, 0));
    write(tasks, 15, stat(15, "GC Thread#1", 100, 0));
    write(tasks, 16, stat(16, "C1 CompilerThre", 150, 0));
    ThreadCpu threads = new ThreadCpu(tasks);

    threads.sample();

    assertThat(threads.secondsByGroup())
        .containsExactly(
            entry("Dedupe and aggr", 70.0),
            entry("C2 CompilerThre", 10.0),
            entry("GC Thread#N", 3.0),
            entry("C1 CompilerThre", 1.5));
    assertThat(threads.markdown(1_000_000))
        .contains("| `Dedupe and aggr` | 70.0 | 82.8 % | 70.00 |")
        .contains("| all threads seen | 84.5 | 100 % | |");
  }

  @Test
  void aThreadThatEndedKeepsItsLastSample(@TempDir Path tasks) throws IOException {
    write(tasks, 21, stat(21, "rocksdb:low", 400, 100));
    ThreadCpu threads = new ThreadCpu(tasks);
    threads.sample();

    Files.delete(tasks.resolve("21").resolve("stat"));
    Files.delete(tasks.resolve("21"));
    threads.sample();

    assertThat(threads.secondsByGroup()).containsExactly(entry("rocksdb:low", 5.0));
  }

  private static Map.Entry<String, Double> entry(String group, double seconds) {
    return Map.entry(group, seconds);
  }

  private static void write(Path tasks, int tid, String stat) throws IOException {
    Path dir = Files.createDirectories(tasks.resolve(Integer.toString(tid)));
    Files.writeString(dir.resolve("stat"), stat);
  }
}
