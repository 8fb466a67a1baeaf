package dev.tally.stack;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Tally's job command line, built in this one place for every way the tools start the job: in a JVM
 * of its own on the job jar and the Flink libraries a cluster would provide ({@code TallyMain
 * --local}, with the web UI; the demo and the bench), and as the program arguments of {@code flink
 * run} on a session cluster ({@link FlinkCluster#submit}). Either way the job reads one {@code
 * tally.yaml} ({@link TallyYaml}) and {@code --set key=value} overrides, as a user's would.
 */
public final class TallyJobLauncher {

  /** The job jar's main class. */
  public static final String MAIN_CLASS = "dev.tally.runtime.TallyMain";

  private final Path config;
  private final List<String> leading;
  private final List<String> overrides;

  private TallyJobLauncher(Path config, List<String> leading, List<String> overrides) {
    this.config = config;
    this.leading = List.copyOf(leading);
    this.overrides = List.copyOf(overrides);
  }

  /** The job reading {@code config} with no overrides: Tally's pipeline. */
  public static TallyJobLauncher of(Path config) {
    return new TallyJobLauncher(Objects.requireNonNull(config, "config"), List.of(), List.of());
  }

  /**
   * This job with arguments before the common ones: a subcommand and its options ({@code sql --file
   * seed.sql}), or the options of another main class run the same way.
   */
  public TallyJobLauncher leadingArguments(List<String> arguments) {
    List<String> all = new ArrayList<>(leading);
    all.addAll(arguments);
    return new TallyJobLauncher(config, all, overrides);
  }

  /** This job with more {@code --set key=value} overrides of the configuration file. */
  public TallyJobLauncher overrides(List<String> keyValues) {
    List<String> all = new ArrayList<>(overrides);
    all.addAll(keyValues);
    return new TallyJobLauncher(config, leading, all);
  }

  /** What follows the jar in {@code flink run <jar> ...}. */
  public List<String> programArguments() {
    return arguments(List.of());
  }

  /** A run of this job in a JVM of its own, on {@code jobJar} and {@code flinkLib/*}. */
  public LocalRun locally(Path jobJar, Path flinkLib) {
    return new LocalRun(jobJar, flinkLib);
  }

  private List<String> arguments(List<String> runFlags) {
    List<String> arguments = new ArrayList<>(leading);
    arguments.addAll(runFlags);
    arguments.addAll(List.of("--config", config.toString()));
    for (String override : overrides) {
      arguments.addAll(List.of("--set", override));
    }
    return arguments;
  }

  /** A local run's JVM: its class path, heap, web port, directories and environment. */
  public final class LocalRun {
    private final Path jobJar;
    private final Path flinkLib;
    private String mainClass = MAIN_CLASS;
    private final List<Path> extraClasspath = new ArrayList<>();
    private String maxHeap = "2g";
    private int webPort = 8081;
    private Integer metricsPort;
    private Path temporaryDirectory;
    private final List<String> jvmOptions = new ArrayList<>();
    private final Map<String, String> environment = new LinkedHashMap<>();

    private LocalRun(Path jobJar, Path flinkLib) {
      this.jobJar = Objects.requireNonNull(jobJar, "jobJar");
      this.flinkLib = Objects.requireNonNull(flinkLib, "flinkLib");
    }

    /**
     * Another main class taking {@code TallyMain}'s arguments, found on {@code classpath} behind
     * the job jar and the Flink libraries.
     */
    public LocalRun mainClass(String className, List<Path> classpath) {
      this.mainClass = Objects.requireNonNull(className, "className");
      extraClasspath.addAll(classpath);
      return this;
    }

    /** {@code -Xmx}, e.g. {@code 2g} (the default). */
    public LocalRun maxHeap(String size) {
      this.maxHeap = Objects.requireNonNull(size, "size");
      return this;
    }

    /** The port of the job's REST API and web UI; 8081 by default. */
    public LocalRun webPort(int port) {
      this.webPort = port;
      return this;
    }

    /**
     * The port of the job's Prometheus endpoint ({@code --metrics-port}), 0 for none; without it
     * the job's own default.
     */
    public LocalRun metricsPort(int port) {
      this.metricsPort = port;
      return this;
    }

    /**
     * The JVM's {@code java.io.tmpdir}: the job's MiniCluster keeps its RocksDB instances there,
     * and a job stopped with SIGTERM leaves them behind, so a caller that deletes this directory
     * afterwards keeps nothing of them.
     */
    public LocalRun temporaryDirectory(Path directory) {
      this.temporaryDirectory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /** More JVM options, e.g. a flight recording. */
    public LocalRun jvmOptions(List<String> options) {
      jvmOptions.addAll(options);
      return this;
    }

    /** More environment, e.g. the AWS settings S3FileIO takes from the SDK's default chain. */
    public LocalRun environment(Map<String, String> variables) {
      environment.putAll(variables);
      return this;
    }

    /** The JVM's command line. */
    public List<String> command(Path logConfiguration) {
      List<String> command = new ArrayList<>(List.of(java(), "-Xmx" + maxHeap, "-XX:+UseG1GC"));
      command.addAll(jvmOptions);
      if (temporaryDirectory != null) {
        command.add("-Djava.io.tmpdir=" + temporaryDirectory);
      }
      command.add("-Dlog4j2.configurationFile=" + logConfiguration.toUri());
      List<String> classpath =
          new ArrayList<>(List.of(jobJar.toString(), flinkLib.resolve("*").toString()));
      extraClasspath.forEach(entry -> classpath.add(entry.toString()));
      command.addAll(List.of("-cp", String.join(File.pathSeparator, classpath), mainClass));
      List<String> local =
          new ArrayList<>(List.of("--local", "--web-port", Integer.toString(webPort)));
      if (metricsPort != null) {
        local.addAll(List.of("--metrics-port", Integer.toString(metricsPort)));
      }
      command.addAll(arguments(local));
      return command;
    }

    /**
     * The JVM's process, not started yet: output and errors go to {@code log}, and its log4j
     * configuration (INFO for Flink and Tally, quiet clients) is written next to it.
     */
    public ProcessBuilder process(Path log) {
      try {
        Path directory = log.toAbsolutePath().getParent();
        if (temporaryDirectory != null) {
          Files.createDirectories(temporaryDirectory);
        }
        ProcessBuilder builder =
            new ProcessBuilder(command(writeLogConfiguration(directory)))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        return builder;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot prepare the job's JVM in " + log.getParent(), e);
      }
    }
  }

  /** The Java launcher of this JVM: the job runs on the same JDK as the tool that starts it. */
  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static Path writeLogConfiguration(Path directory) throws IOException {
    Path file = Files.createDirectories(directory).resolve("job-log4j2.properties");
    Files.writeString(
        file,
        """
        rootLogger.level = INFO
        rootLogger.appenderRef.out.ref = out
        appender.out.type = Console
        appender.out.name = out
        appender.out.layout.type = PatternLayout
        appender.out.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n
        logger.kafka.name = org.apache.kafka
        logger.kafka.level = WARN
        logger.iceberg.name = org.apache.iceberg
        logger.iceberg.level = WARN
        logger.hadoop.name = org.apache.hadoop
        logger.hadoop.level = ERROR
        """,
        StandardCharsets.UTF_8);
    return file;
  }
}
