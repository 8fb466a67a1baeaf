package dev.tally.stack;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One service of the local stack running in its own JVM: {@code java -cp <its class path> <main>
 * <args>} with the JDK of the current process, its output in a log file; or, for a service that is
 * not Java (Prometheus), its own executable with its arguments.
 *
 * <p>A service JVM is small on purpose (serial GC, one visible processor, a capped heap): the stack
 * shares a two-core machine with Flink and Maven. Every process started here is also registered
 * with a JVM shutdown hook, so a test run that dies without closing its stack does not leave
 * brokers running; processes are only ever ended through their own {@link Process} handle.
 */
public final class ServiceProcess implements AutoCloseable {
  /** JVM options every service gets, before its own. */
  static final List<String> COMMON_JVM_OPTIONS =
      List.of(
          "-XX:+UseSerialGC",
          "-XX:ActiveProcessorCount=1",
          "-XX:+ExitOnOutOfMemoryError",
          "-Djava.awt.headless=true",
          "-Dfile.encoding=UTF-8");

  private static final Duration POLL_INTERVAL = Duration.ofMillis(100);
  private static final Duration GRACEFUL_STOP = Duration.ofSeconds(30);
  private static final int LOG_TAIL_LINES = 60;

  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(ServiceProcess::stopAllLive, "tally-stack-reaper"));
  }

  private final String name;
  private final Process process;
  private final Path logFile;
  private final long startedNanos;
  private volatile Duration readyAfter;

  private ServiceProcess(String name, Process process, Path logFile, long startedNanos) {
    this.name = name;
    this.process = process;
    this.logFile = logFile;
    this.startedNanos = startedNanos;
  }

  /**
   * Starts describing a service JVM.
   *
   * @param name a short name for messages and thread names, e.g. {@code kafka}
   */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** The service's name, as given to the builder. */
  public String name() {
    return name;
  }

  /** The operating-system process id. */
  public long pid() {
    return process.pid();
  }

  /** Whether the JVM is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** The file that receives the service's standard output and standard error. */
  public Path logFile() {
    return logFile;
  }

  /** Time since the process was launched. */
  public Duration uptime() {
    return Duration.ofNanos(System.nanoTime() - startedNanos);
  }

  /** Time from launch to the first successful readiness check; empty until then. */
  public Optional<Duration> readyAfter() {
    return Optional.ofNullable(readyAfter);
  }

  /**
   * The resident set size of the process, read from {@code /proc}; empty where there is no {@code
   * /proc} (not Linux) or the process has ended.
   */
  public OptionalLong residentSetBytes() {
    Path status = Path.of("/proc", Long.toString(process.pid()), "status");
    try (Stream<String> lines = Files.lines(status, StandardCharsets.UTF_8)) {
      return lines
          .filter(line -> line.startsWith("VmRSS:"))
          .mapToLong(line -> Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024)
          .findFirst();
    } catch (IOException | UncheckedIOException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * Polls {@code probe} until it reports ready.
   *
   * @throws StackException if the process exits first or the timeout passes (the process is then
   *     stopped); the message carries the last probe failure and the tail of the log
   */
  public void awaitReady(Duration timeout, ReadinessProbe probe) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception lastFailure = null;
    while (true) {
      if (!process.isAlive()) {
        throw failure("exited with code " + process.exitValue() + " before it was ready", null);
      }
      try {
        if (probe.isReady()) {
          readyAfter = uptime();
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        close();
        throw new StackException(name + ": interrupted while waiting for readiness", e);
      } catch (Exception e) {
        // Expected while the service boots (connection refused, not yet serving): keep polling.
        lastFailure = e;
      }
      if (System.nanoTime() - deadline >= 0) {
        close();
        throw failure("was not ready within " + timeout, lastFailure);
      }
      sleep(POLL_INTERVAL);
    }
  }

  /**
   * Waits for a one-shot tool (for example Kafka's storage formatter) to finish successfully.
   *
   * @throws StackException if it exits with a non-zero code or does not finish in time
   */
  public void awaitSuccessfulExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        close();
        throw failure("did not finish within " + timeout, null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      throw new StackException(name + ": interrupted while waiting for it to finish", e);
    }
    LIVE.remove(process);
    if (process.exitValue() != 0) {
      throw failure("failed with exit code " + process.exitValue(), null);
    }
  }

  /**
   * Ends the JVM at once, as {@code kill -9} does: no shutdown hooks, no clean close of files or
   * connections. Waits until the process is gone. Through this process's own handle only.
   */
  public void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(GRACEFUL_STOP.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new StackException(name + " (pid " + process.pid() + ") did not end after SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException(name + ": interrupted while waiting for it to end", e);
    }
    LIVE.remove(process);
  }

  /** The exit code once the process has ended; empty while it runs. */
  public OptionalInt exitCode() {
    return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
  }

  /** The last lines of the service's log, for error messages. */
  public String logTail() {
    return logTail(logFile, LOG_TAIL_LINES);
  }

  /**
   * Stops the service: a polite termination request first (so a broker can close its logs cleanly),
   * a forced kill if it has not ended within 30 seconds.
   */
  @Override
  public void close() {
    stop(process, GRACEFUL_STOP);
    LIVE.remove(process);
  }

  @Override
  public String toString() {
    return name + "[pid " + process.pid() + ", log " + logFile + "]";
  }

  private StackException failure(String what, Exception cause) {
    String message =
        name
            + " (pid "
            + process.pid()
            + ") "
            + what
            + (cause == null ? "" : "; last readiness check: " + cause)
            + "\n--- last lines of "
            + logFile
            + " ---\n"
            + logTail();
    return cause == null ? new StackException(message) : new StackException(message, cause);
  }

  private static void stop(Process process, Duration grace) {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static void stopAllLive() {
    // Ask all at once, then wait: the stack's services stop in parallel rather than in sequence.
    LIVE.forEach(Process::destroy);
    LIVE.forEach(process -> stop(process, Duration.ofSeconds(10)));
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("interrupted", e);
    }
  }

  static String logTail(Path file, int lines) {
    if (!Files.isRegularFile(file)) {
      return "(no log file)";
    }
    Deque<String> tail = new ArrayDeque<>(lines);
    try (Stream<String> all = Files.lines(file, StandardCharsets.UTF_8)) {
      all.forEach(
          line -> {
            if (tail.size() == lines) {
              tail.removeFirst();
            }
            tail.addLast(line);
          });
    } catch (IOException | UncheckedIOException e) {
      return "(log unreadable: " + e + ")";
    }
    return String.join("\n", tail);
  }

  /** Reports whether a service answers as it should; an exception counts as "not yet". */
  @FunctionalInterface
  public interface ReadinessProbe {
    /**
     * @return true once the service serves requests
     * @throws Exception while it cannot be reached yet
     */
    boolean isReady() throws Exception;
  }

  /** Describes one service JVM; {@link #start()} launches it. */
  public static final class Builder {
    private final String name;
    private List<Path> classpath;
    private String mainClass;
    private Path executable;
    private final List<String> args = new ArrayList<>();
    private final List<String> jvmOptions = new ArrayList<>(COMMON_JVM_OPTIONS);
    private final Map<String, String> environment = new LinkedHashMap<>();
    private final List<String> removedEnvironmentPrefixes = new ArrayList<>();
    private Path workingDirectory;
    private Path logFile;

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    /** The service's jars, usually {@link ServiceClasspath#of(String)}. */
    public Builder classpath(List<Path> jars) {
      this.classpath = List.copyOf(Objects.requireNonNull(jars, "jars"));
      return this;
    }

    /** The main class to run. */
    public Builder mainClass(String mainClass) {
      this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
      return this;
    }

    /**
     * Runs {@code program} with the {@link #args} instead of a JVM: no class path, main class or
     * JVM options.
     */
    public Builder executable(Path program) {
      this.executable = Objects.requireNonNull(program, "program");
      return this;
    }

    /** Program arguments, appended in order. */
    public Builder args(String... args) {
      for (String arg : args) {
        this.args.add(Objects.requireNonNull(arg, "arg"));
      }
      return this;
    }

    /** JVM options, after the common ones (so a later {@code -Xmx} wins). */
    public Builder jvmOptions(String... options) {
      for (String option : options) {
        this.jvmOptions.add(Objects.requireNonNull(option, "option"));
      }
      return this;
    }

    /** Sets one environment variable of the service (the rest is inherited). */
    public Builder env(String key, String value) {
      environment.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** Sets every variable of {@code variables}. */
    public Builder envAll(Map<String, String> variables) {
      variables.forEach(this::env);
      return this;
    }

    /**
     * Drops inherited environment variables whose name starts with {@code prefix}, so a setting of
     * the developer's shell (an {@code AWS_PROFILE}, a stray {@code CATALOG_*}) cannot leak in.
     */
    public Builder removeInheritedEnv(String prefix) {
      removedEnvironmentPrefixes.add(Objects.requireNonNull(prefix, "prefix"));
      return this;
    }

    /** The service's working directory; created if missing. */
    public Builder workingDirectory(Path directory) {
      this.workingDirectory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /** Where standard output and standard error go; appended to, so restarts keep history. */
    public Builder logFile(Path file) {
      this.logFile = Objects.requireNonNull(file, "file");
      return this;
    }

    /** Launches the JVM; does not wait for the service to be ready. */
    public ServiceProcess start() {
      List<String> problems = new ArrayList<>();
      if (executable == null && (classpath == null || classpath.isEmpty())) {
        problems.add("classpath is not set");
      }
      if (executable == null && mainClass == null) {
        problems.add("mainClass is not set");
      }
      if (workingDirectory == null) {
        problems.add("workingDirectory is not set");
      }
      if (!problems.isEmpty()) {
        throw new IllegalStateException(name + ": " + String.join(", ", problems));
      }
      Path log = logFile != null ? logFile : workingDirectory.resolve(name + ".log");
      List<String> command = new ArrayList<>();
      if (executable != null) {
        command.add(executable.toString());
      } else {
        command.add(javaExecutable().toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(
            classpath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)));
        command.add(mainClass);
      }
      command.addAll(args);

      ProcessBuilder builder = new ProcessBuilder(command);
      builder.directory(workingDirectory.toFile());
      builder.redirectErrorStream(true);
      builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      Map<String, String> env = builder.environment();
      env.keySet().removeIf(key -> removedEnvironmentPrefixes.stream().anyMatch(key::startsWith));
      env.putAll(environment);
      try {
        Files.createDirectories(workingDirectory);
        Files.createDirectories(log.toAbsolutePath().getParent());
        long started = System.nanoTime();
        Process process = builder.start();
        LIVE.add(process);
        // Services read nothing from standard input; closing it means none can block on it.
        process.getOutputStream().close();
        return new ServiceProcess(name, process, log, started);
      } catch (IOException e) {
        throw new StackException(
            name + ": cannot launch " + (executable != null ? executable : mainClass), e);
      }
    }

    private static Path javaExecutable() {
      // The JDK running the tests runs the services too: no PATH lookup, no second JDK to install.
      return Path.of(System.getProperty("java.home"), "bin", "java");
    }
  }
}
