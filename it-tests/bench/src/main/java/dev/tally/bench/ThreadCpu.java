package dev.tally.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * CPU time of a process's threads, grouped by thread name, read from {@code
 * /proc/<pid>/task/<tid>/stat}. Unlike a Java profile it sees every thread: Flink's task threads
 * (the JVM gives each Java thread's name, cut to 15 characters, to the kernel), the JIT compilers,
 * the garbage collector and RocksDB's native flush and compaction threads. So it says which stage
 * of a job takes the CPU, and a Java profile then says where inside a stage.
 *
 * <p>Numbers in a name become {@code N}, so the subtasks of one operator and the numbered threads
 * of one pool form one group; a digit right after a letter is part of the name ({@code C1} and
 * {@code C2} are two compilers). A thread's figure is its last sample: a thread that ends between
 * two samples loses at most one interval, and one that lives shorter than an interval is not seen.
 */
final class ThreadCpu {

  /**
   * The kernel's clock ticks per second for {@code utime} and {@code stime} ({@code USER_HZ}): 100
   * on every Linux the bench runs on; Java cannot ask {@code sysconf}.
   */
  private static final double TICKS_PER_SECOND = 100;

  private final Path tasks;
  private final Map<String, Sample> byThread = new HashMap<>();

  /** The threads of process {@code pid}. */
  ThreadCpu(long pid) {
    this(Path.of("/proc", Long.toString(pid), "task"));
  }

  ThreadCpu(Path tasks) {
    this.tasks = tasks;
  }

  /** A thread's name and CPU ticks (user + system) at its last sample. */
  record Sample(String name, long ticks) {}

  /**
   * Reads every thread's CPU time; a process that has exited, or a thread that ended meanwhile,
   * leaves the previous figures as they were.
   */
  synchronized void sample() {
    try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
      for (Path thread : threads) {
        try {
          parseStat(Files.readString(thread.resolve("stat")))
              .ifPresent(s -> byThread.put(thread.getFileName().toString(), s));
        } catch (IOException | RuntimeException gone) {
          // The thread ended between the listing and the read: its last sample stands.
        }
      }
    } catch (IOException | RuntimeException gone) {
      // The process ended: the last samples stand.
    }
  }

  /**
   * A thread's name and user + system ticks from one line of {@code stat}: {@code tid (name) state
   * ppid ...}, where the name may hold spaces and parentheses, so the fields are counted from the
   * last {@code ')'}; {@code utime} and {@code stime} are the 14th and 15th fields.
   */
  static Optional<Sample> parseStat(String line) {
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open < 0 || close < open) {
      return Optional.empty();
    }
    String[] after = line.substring(close + 1).trim().split("\\s+");
    // after[0] is field 3 (state), so field k is after[k - 3].
    if (after.length < 13) {
      return Optional.empty();
    }
    long ticks = Long.parseLong(after[11]) + Long.parseLong(after[12]);
    return Optional.of(new Sample(line.substring(open + 1, close), ticks));
  }

  /** The group a thread's name belongs to: its numbers as {@code N}. */
  static String group(String threadName) {
    return threadName.replaceAll("(?<![A-Za-z])[0-9]+", "N");
  }

  /** CPU seconds per group at the last sample, largest first. */
  synchronized Map<String, Double> secondsByGroup() {
    Map<String, Long> ticks = new HashMap<>();
    for (Sample s : byThread.values()) {
      ticks.merge(group(s.name()), s.ticks(), Long::sum);
    }
    List<Map.Entry<String, Long>> sorted = new ArrayList<>(ticks.entrySet());
    sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed());
    Map<String, Double> seconds = new LinkedHashMap<>();
    sorted.forEach(e -> seconds.put(e.getKey(), e.getValue() / TICKS_PER_SECOND));
    return seconds;
  }

  /**
   * A Markdown table of the groups: CPU seconds, share of the threads' sum, and CPU-µs per record
   * when {@code records} is positive.
   */
  String markdown(long records) {
    Map<String, Double> groups = secondsByGroup();
    double total = groups.values().stream().mapToDouble(Double::doubleValue).sum();
    StringBuilder md =
        new StringBuilder("| threads (numbers as N) | CPU s | share | CPU-µs per record |\n")
            .append("|---|---:|---:|---:|\n");
    groups.forEach(
        (name, seconds) ->
            md.append(
                String.format(
                    Locale.ROOT,
                    "| `%s` | %.1f | %.1f %% | %s |%n",
                    name,
                    seconds,
                    total > 0 ? 100 * seconds / total : 0,
                    records > 0
                        ? String.format(Locale.ROOT, "%.2f", seconds * 1e6 / records)
                        : "")));
    md.append(String.format(Locale.ROOT, "| all threads seen | %.1f | 100 %% | |%n", total));
    return md.toString();
  }
}
