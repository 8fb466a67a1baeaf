package dev.tally.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A leg's command in its own JVM, watched from outside so every leg is measured the same way: CPU
 * time (user + system, of the whole process: JIT, GC and native threads such as RocksDB included)
 * and peak resident set size ({@code VmHWM}), both read from {@code /proc/<pid>} every 100 ms while
 * it runs. The last sample before exit is the figure, so at most 100 ms of CPU go unseen. Every
 * half second it also samples the CPU time of each of its threads ({@link ThreadCpu}).
 */
final class MeasuredProcess {

  private static final long SAMPLE_MILLIS = 100;

  /** Threads are sampled every this many process samples: a few hundred files to read each time. */
  private static final int THREAD_SAMPLE_EVERY = 5;

  private final Process process;
  private final long startedNanos;
  private final long startedEpochMillis;
  private volatile Duration cpu = Duration.ZERO;
  private volatile long peakRssBytes;
  private long exitedNanos;
  private long exitedEpochMillis;
  private final Thread sampler;
  private final ThreadCpu threads;

  private MeasuredProcess(Process process, long startedNanos, long startedEpochMillis) {
    this.process = process;
    this.startedNanos = startedNanos;
    this.startedEpochMillis = startedEpochMillis;
    this.threads = new ThreadCpu(process.pid());
    this.sampler = new Thread(this::sample, "bench-sampler-" + process.pid());
    sampler.setDaemon(true);
    sampler.start();
  }

  /** Starts {@code builder}'s process (its output redirected as the builder says). */
  static MeasuredProcess start(ProcessBuilder builder) throws IOException {
    long nanos = System.nanoTime();
    long epoch = System.currentTimeMillis();
    Process process = builder.start();
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
    return new MeasuredProcess(process, nanos, epoch);
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits for the process to exit (at most {@code timeout}, then kills it) and returns its code.
   */
  int await(Duration timeout) throws InterruptedException {
    boolean exited =
        process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    exitedNanos = System.nanoTime();
    exitedEpochMillis = System.currentTimeMillis();
    if (!exited) {
      process.destroyForcibly().waitFor();
      return -1;
    }
    sampler.join(1_000);
    return process.exitValue();
  }

  /** Kills the process at once (SIGKILL, as {@code kill -9}) and waits for it. */
  int kill(Duration timeout) throws InterruptedException {
    process.destroyForcibly();
    return await(timeout);
  }

  /** Asks the process to stop (SIGTERM) and waits for it. */
  int stop(Duration timeout) throws InterruptedException {
    process.destroy();
    return await(timeout);
  }

  Duration cpu() {
    return cpu;
  }

  long peakRssBytes() {
    return peakRssBytes;
  }

  /** CPU time per thread group, as last sampled. */
  ThreadCpu threads() {
    return threads;
  }

  /** Wall time from start to exit. */
  Duration wall() {
    return Duration.ofNanos(exitedNanos - startedNanos);
  }

  long startedEpochMillis() {
    return startedEpochMillis;
  }

  long exitedEpochMillis() {
    return exitedEpochMillis;
  }

  private void sample() {
    Path status = Path.of("/proc", Long.toString(process.pid()), "status");
    for (long round = 0; process.isAlive(); round++) {
      process.toHandle().info().totalCpuDuration().ifPresent(d -> cpu = d);
      if (round % THREAD_SAMPLE_EVERY == 0) {
        threads.sample();
      }
      try {
        for (String line : Files.readAllLines(status)) {
          if (line.startsWith("VmHWM:")) {
            long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
            peakRssBytes = Math.max(peakRssBytes, kib * 1024);
          }
        }
      } catch (IOException | RuntimeException gone) {
        // The process exited between the check and the read: the previous sample stands.
      }
      try {
        Thread.sleep(SAMPLE_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
