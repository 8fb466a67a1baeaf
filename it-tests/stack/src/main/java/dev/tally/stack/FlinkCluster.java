package dev.tally.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Flink standalone session cluster: one JobManager ({@code
 * StandaloneSessionClusterEntrypoint}) and N TaskManagers ({@code TaskManagerRunner}), each in its
 * own JVM, on loopback ports, configured by a generated {@code config.yaml}; and Flink's own CLI
 * front end ({@code CliFrontend}, the code behind {@code bin/flink}) to submit, stop and cancel
 * jobs, each call a JVM of its own with {@code FLINK_CONF_DIR} set to the cluster's configuration.
 *
 * <p>Flink comes from the class path of {@code it-tests/stack-flink} (Flink's Maven modules: there
 * is no {@code flink-dist} on Maven Central). The distribution's scripts are not used, so this
 * class passes what they would: memory flags derived from the configured sizes and the JDK 17
 * {@code --add-opens} flags ({@code env.java.opts.all} is applied by the scripts, not by the main
 * classes).
 */
public final class FlinkCluster implements AutoCloseable {
  private static final String SERVICE = "flink";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration CLI_TIMEOUT = Duration.ofMinutes(3);
  // Flink's client says "JobID <id>" for a DataStream job; TallyMain sql says "submitted as job".
  private static final Pattern JOB_ID =
      Pattern.compile("(?:JobID|submitted as job) ([0-9a-f]{32})");
  private static final Pattern SAVEPOINT_PATH =
      Pattern.compile("Savepoint completed\\. Path: (\\S+)");

  /** What a Flink distribution passes its JVMs on JDK 17 ({@code env.java.default-opts.all}). */
  static final List<String> JDK17_OPENS =
      List.of(
          "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
          "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
          "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED",
          "--add-opens=java.base/java.net=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.base/java.text=ALL-UNNAMED",
          "--add-opens=java.base/java.time=ALL-UNNAMED",
          "--add-opens=java.base/java.util=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

  // Sized for a two-core machine that also runs Kafka, the catalog, the store and the tests.
  // TaskManager: process 2240m = metaspace 512m + overhead 192m + Flink 1536m; Flink 1536m =
  // framework heap 128m + task heap 1024m + framework off-heap 128m + network 64m + managed 192m.
  // The task heap holds every subtask a TaskManager may get: after a loss the survivor runs the
  // lost one's subtasks too and catches up their backlog; at 320m (enough for one subtask at
  // 20,000 events/s) such a TaskManager died of OutOfMemoryError within a minute (./bench.sh
  // recovery, docs/benchmarks.md).
  // Metaspace is twice Flink's default: a session cluster loads the ~180 MB job jar (Iceberg, the
  // AWS SDK, Hadoop, Kafka clients) in a fresh class loader for every job and every restart, and
  // 256m ran out (OutOfMemoryError: Metaspace) on the third job of one TaskManager.
  private static final String JM_PROCESS_SIZE = "1280m";
  private static final List<String> JM_JVM = List.of("-Xmx448m", "-XX:MaxMetaspaceSize=512m");
  private static final String TM_PROCESS_SIZE = "2240m";
  private static final String TM_TASK_HEAP = "1024m";
  private static final List<String> TM_JVM =
      List.of("-Xmx1152m", "-XX:MaxDirectMemorySize=192m", "-XX:MaxMetaspaceSize=512m");

  /**
   * How fast the cluster notices and replaces a lost TaskManager (docs/deployment.md, "Recovery",
   * measured by {@code ./bench.sh recovery}). A TaskManager killed outright stops answering the
   * JobManager's heartbeat RPCs at once (its sockets are closed, so each request fails fast): after
   * {@code rpc-failure-threshold} failed requests, one per {@code interval}, it is declared lost,
   * instead of after the {@code timeout} that covers a TaskManager that hangs without failing. Only
   * an undeliverable request counts (RecipientUnreachableException); a slow answer is left to the
   * timeout. At 500 ms the restart that follows the survivors' own failure (their broken
   * connections, within ~0.3 s) came before the loss was declared: it deployed into the dead
   * TaskManager's slots, failed and restarted twice more; at 100 ms the loss was declared first and
   * the job restarted once. At 50 ms a loss without a survivor is declared about 0.1 s sooner; a
   * heartbeat is one small RPC per TaskManager and interval, cheap for a cluster of tens of
   * TaskManagers, and a slow or paused (GC) TaskManager still has the whole timeout.
   */
  public static final Map<String, String> RECOVERY =
      Map.of(
          "heartbeat.interval", "50 ms",
          "heartbeat.timeout", "5 s",
          "heartbeat.rpc-failure-threshold", "2");

  /**
   * RocksDB's JNI library by the name {@code System.loadLibrary} looks up on this platform, or null
   * where RocksDB's jar has no such library (then each TaskManager extracts it as before).
   */
  static final String ROCKSDB_JNI_LIBRARY = rocksDbJniLibrary();

  /** How long {@code jcmd VM.cds dynamic_dump} may take on a TaskManager that ran a job. */
  private static final Duration DUMP_TIMEOUT = Duration.ofMinutes(2);

  private final Path dir;
  private final Path confDir;
  private final List<Path> classpath;
  private final List<String> taskManagerJvm;
  private final Map<String, String> environment;
  private final int restPort;
  private final boolean classArchives;
  private final ServiceProcess jobManager;
  private final List<ServiceProcess> taskManagers = new ArrayList<>();
  private final Set<ServiceProcess> stopped = ConcurrentHashMap.newKeySet();
  private final AtomicInteger taskManagerSequence = new AtomicInteger();
  private final AtomicInteger cliSequence = new AtomicInteger();
  private final FlinkRestClient rest;

  /** The TaskManagers' class archive once {@link #archiveClasses} wrote it; null before. */
  private volatile Path classArchive;

  private FlinkCluster(
      Path dir,
      Path confDir,
      List<Path> classpath,
      Map<String, String> environment,
      int restPort,
      ServiceProcess jobManager,
      List<String> taskManagerJvm,
      boolean classArchives) {
    this.dir = dir;
    this.confDir = confDir;
    this.classpath = classpath;
    this.taskManagerJvm = List.copyOf(taskManagerJvm);
    this.environment = environment;
    this.restPort = restPort;
    this.classArchives = classArchives;
    this.jobManager = jobManager;
    this.rest = FlinkRestClient.onLoopback(restPort);
  }

  /**
   * Starts a JobManager and {@code taskManagers} TaskManagers under {@code workDir} and waits until
   * the JobManager's REST API reports all of them registered.
   *
   * @param slotsPerTaskManager {@code taskmanager.numberOfTaskSlots}
   * @param environment extra environment of every Flink JVM (e.g. the {@code AWS_*} settings
   *     S3FileIO needs); inherited {@code AWS_*} and {@code FLINK_*} variables are dropped
   * @throws StackException if a process does not come up; the ones already started are stopped
   */
  public static FlinkCluster start(
      Path workDir, int taskManagers, int slotsPerTaskManager, Map<String, String> environment) {
    return start(workDir, taskManagers, slotsPerTaskManager, environment, Map.of());
  }

  /**
   * Starts the cluster as {@link #start(Path, int, int, Map)} does, with {@code settings} written
   * into its {@code config.yaml} over the generated ones: e.g. one recovery setting changed at a
   * time, to measure what it does.
   *
   * @param settings Flink configuration keys and values, replacing the generated value of a key
   */
  public static FlinkCluster start(
      Path workDir,
      int taskManagers,
      int slotsPerTaskManager,
      Map<String, String> environment,
      Map<String, String> settings) {
    return start(workDir, taskManagers, slotsPerTaskManager, environment, settings, false);
  }

  /**
   * Starts the cluster as {@link #start(Path, int, int, Map, Map)} does; with {@code classArchives}
   * its TaskManagers can be trained for a class data sharing archive ({@link #archiveClasses}).
   *
   * @param classArchives whether the TaskManagers started before an archive exists record what a
   *     dynamic archive needs ({@code -XX:+RecordDynamicDumpInfo}), so that one that ran a job can
   *     write it
   */
  public static FlinkCluster start(
      Path workDir,
      int taskManagers,
      int slotsPerTaskManager,
      Map<String, String> environment,
      Map<String, String> settings,
      boolean classArchives) {
    Objects.requireNonNull(workDir, "workDir");
    Path dir = workDir.toAbsolutePath();
    int rpcPort = LoopbackPorts.freePort();
    int restPort = LoopbackPorts.freePort();
    Path confDir = dir.resolve("conf");
    String host = LoopbackPorts.HOST;
    Map<String, String> config = new LinkedHashMap<>();
    config.put("jobmanager.rpc.address", host);
    config.put("jobmanager.rpc.port", Integer.toString(rpcPort));
    config.put("jobmanager.bind-host", host);
    config.put("jobmanager.memory.process.size", JM_PROCESS_SIZE);
    config.put("jobmanager.memory.jvm-metaspace.size", "512m");
    config.put("rest.address", host);
    config.put("rest.bind-address", host);
    config.put("rest.port", Integer.toString(restPort));
    config.put("taskmanager.host", host);
    config.put("taskmanager.bind-host", host);
    config.put("taskmanager.numberOfTaskSlots", Integer.toString(slotsPerTaskManager));
    // TaskManagerRunner does not derive its resource spec: the distribution's scripts compute every
    // component and pass it as a dynamic property. Here they are all set, adding up to the process.
    config.put("taskmanager.cpu.cores", Integer.toString(slotsPerTaskManager));
    config.put("taskmanager.memory.process.size", TM_PROCESS_SIZE);
    config.put("taskmanager.memory.framework.heap.size", "128m");
    config.put("taskmanager.memory.task.heap.size", TM_TASK_HEAP);
    config.put("taskmanager.memory.framework.off-heap.size", "128m");
    config.put("taskmanager.memory.task.off-heap.size", "0m");
    config.put("taskmanager.memory.managed.size", "192m");
    config.put("taskmanager.memory.network.min", "64m");
    config.put("taskmanager.memory.network.max", "64m");
    config.put("taskmanager.memory.jvm-metaspace.size", "512m");
    config.put("taskmanager.memory.jvm-overhead.min", "192m");
    config.put("taskmanager.memory.jvm-overhead.max", "192m");
    // Spread a job's slots over the TaskManagers, so losing one TaskManager hits every job.
    config.put("taskmanager.load-balance.mode", "SLOTS");
    new TreeMap<>(RECOVERY).forEach(config::put);
    config.put("parallelism.default", "1");
    config.put("io.tmp.dirs", dir.resolve("tmp").toString());
    config.put("web.tmpdir", dir.resolve("web").toString());
    config.put("blob.storage.directory", dir.resolve("blobs").toString());
    config.putAll(settings);
    writeConfig(confDir, config);
    ServiceClasspath.copyResource("flink-log4j2.properties", confDir.resolve("log4j.properties"));
    createDirectory(dir.resolve("tmp"));

    List<Path> classpath = ServiceClasspath.of(SERVICE);
    Map<String, String> env = Map.copyOf(environment);
    ServiceProcess jm =
        builder("jobmanager", dir, confDir, classpath, env)
            .mainClass("org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint")
            .args("--configDir", confDir.toString())
            .jvmOptions(JM_JVM.toArray(String[]::new))
            .logFile(dir.resolve("jobmanager.log"))
            .start();
    List<String> tmJvm = new ArrayList<>(TM_JVM);
    extractRocksDbLibrary(classpath, dir.resolve("native"))
        .ifPresent(
            library ->
                tmJvm.add(
                    "-Djava.library.path="
                        + library.getParent()
                        + java.io.File.pathSeparator
                        + System.getProperty("java.library.path", "")));
    FlinkCluster cluster =
        new FlinkCluster(dir, confDir, classpath, env, restPort, jm, tmJvm, classArchives);
    try {
      jm.awaitReady(READY_TIMEOUT, () -> cluster.rest.overview() != null);
      for (int i = 0; i < taskManagers; i++) {
        cluster.launchTaskManager();
      }
      cluster.awaitTaskManagers(cluster.taskManagers.stream().map(ServiceProcess::name).toList());
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** The REST endpoint (and web UI), {@code http://127.0.0.1:<port>}. */
  public String restAddress() {
    return "http://" + LoopbackPorts.HOST + ":" + restPort;
  }

  /** The directory holding the generated {@code config.yaml}: {@code FLINK_CONF_DIR}. */
  public Path configurationDirectory() {
    return confDir;
  }

  /** The JobManager process. */
  public ServiceProcess jobManager() {
    return jobManager;
  }

  /** The TaskManager processes, in start order, dead ones included. */
  public List<ServiceProcess> taskManagers() {
    return List.copyOf(taskManagers);
  }

  /**
   * Kills TaskManager {@code index} at once ({@code kill -9} through its process handle): no
   * deregistration, no clean close; the JobManager finds out by heartbeat or broken connections.
   */
  public void killTaskManager(int index) {
    taskManagers.get(index).kill();
  }

  /**
   * Starts one more TaskManager and waits until the JobManager has registered it.
   *
   * @return its index for {@link #killTaskManager(int)}
   */
  public int startTaskManager() {
    launchTaskManager();
    awaitTaskManagers(
        taskManagers.stream().filter(ServiceProcess::isAlive).map(ServiceProcess::name).toList());
    return taskManagers.size() - 1;
  }

  /**
   * Stops TaskManager {@code index} politely (a termination request), e.g. the one {@link
   * #archiveClasses} paused; its tasks fail over as after a loss.
   */
  public void stopTaskManager(int index) {
    ServiceProcess tm = taskManagers.get(index);
    stopped.add(tm);
    tm.close();
  }

  /**
   * Writes a class data sharing archive of TaskManager {@code index} ({@code jcmd <pid> VM.cds
   * dynamic_dump}), which every TaskManager started after this call maps at its start ({@code
   * -XX:SharedArchiveFile}). Taken from a TaskManager that ran a job, the archive holds, parsed and
   * linked, the classes it loaded: Flink's from the class path and the job's from its jar through
   * Flink's user-code class loader (a dynamic archive keeps classes of custom class loaders loaded
   * from jar files; a class is taken from it when a loader defines the same bytes). A cold
   * TaskManager that receives the job's tasks then maps them instead of reading, parsing and
   * verifying them from the job jar (docs/deployment.md, "Class data sharing"). The JVM checks that
   * its class path matches the archive's and otherwise starts without it. Only one archive per
   * TaskManager process: the JVM refuses a second dump. The dump stops the TaskManager's JVM while
   * it writes (33 s for a 97 MB archive on the bench's loaded 2 cores), longer than {@link
   * #RECOVERY}'s heartbeat timeout: the JobManager declares it lost and its tasks fail over, so
   * train before measuring and then replace it ({@link #stopTaskManager}).
   *
   * @return the archive
   * @throws IllegalStateException if the cluster was not started with {@code classArchives}
   */
  public Path archiveClasses(int index) {
    if (!classArchives) {
      throw new IllegalStateException("the cluster was started without class archives");
    }
    ServiceProcess tm = taskManagers.get(index);
    Path archive = dir.resolve(tm.name() + ".jsa");
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    String name = "jcmd-" + tm.name();
    ServiceProcess dump =
        ServiceProcess.builder(name)
            .executable(jcmd)
            .args(Long.toString(tm.pid()), "VM.cds", "dynamic_dump", archive.toString())
            .workingDirectory(dir)
            .logFile(dir.resolve(name + ".log"))
            .start();
    dump.awaitSuccessfulExit(DUMP_TIMEOUT);
    if (!Files.isRegularFile(archive)) {
      throw new StackException(
          "jcmd wrote no archive " + archive + " (" + tm.name() + "'s log):\n" + tm.logTail());
    }
    classArchive = archive;
    return archive;
  }

  /** The resource id of TaskManager {@code index} ({@code taskmanager.resource-id}). */
  public String taskManagerId(int index) {
    return taskManagers.get(index).name();
  }

  /** The cluster's REST API, for what this class does not wrap. */
  public FlinkRestClient rest() {
    return rest;
  }

  /**
   * The resource ids of the TaskManagers registered at the JobManager (from {@code /taskmanagers});
   * a killed one stays until its heartbeat times out.
   */
  public Set<String> registeredTaskManagers() {
    Set<String> ids = new LinkedHashSet<>();
    rest.taskManagers().forEach(tm -> ids.add(tm.id()));
    return ids;
  }

  /** The job's status ({@code RUNNING}, {@code FINISHED}, {@code RESTARTING}, ...). */
  public String jobStatus(String jobId) {
    return rest.job(jobId).state();
  }

  /**
   * Whether the job is {@code RUNNING} with every subtask of every vertex running (or already
   * finished, as a bounded source's may be).
   */
  public boolean allTasksRunning(String jobId) {
    return rest.job(jobId).allTasksRunning();
  }

  /** Epoch milliseconds of the job's last transition to {@code status}; 0 if it never had it. */
  public long lastTransitionTo(String jobId, String status) {
    return rest.job(jobId).lastTransitionTo(status);
  }

  /** The number of completed checkpoints of the job (savepoints included, restored excluded). */
  public long completedCheckpoints(String jobId) {
    return rest.checkpoints(jobId).counts().completed();
  }

  /** How often the job was restored from a checkpoint or savepoint (at start or on failover). */
  public long restoredCheckpoints(String jobId) {
    return rest.checkpoints(jobId).counts().restored();
  }

  /** The resource ids of the TaskManagers that run at least one subtask of the job. */
  public Set<String> taskManagersOf(String jobId) {
    Set<String> ids = new LinkedHashSet<>();
    for (FlinkRestClient.Vertex vertex : rest.job(jobId).vertices()) {
      ids.addAll(rest.taskManagersOf(jobId, vertex.id()));
    }
    return ids;
  }

  /**
   * {@code flink run -d -p <parallelism> [-s <savepoint>] <jar> <job's arguments>} through the CLI
   * front end.
   *
   * @param savepoint a savepoint or retained checkpoint to start from, or null
   * @return the submitted job's id
   */
  public String submit(Path jobJar, int parallelism, String savepoint, TallyJobLauncher job) {
    return submit(jobJar, parallelism, savepoint, job, Map.of());
  }

  /**
   * {@code flink run} as {@link #submit(Path, int, String, TallyJobLauncher)}, the CLI front end
   * given {@code clientEnvironment} too: the job's {@code main} runs there, so that is where a SQL
   * script's {@code ${NAME}} placeholders are read ({@code TallyMain sql}).
   */
  public String submit(
      Path jobJar,
      int parallelism,
      String savepoint,
      TallyJobLauncher job,
      Map<String, String> clientEnvironment) {
    List<String> args = new ArrayList<>(List.of("run", "-d", "-p", Integer.toString(parallelism)));
    if (savepoint != null) {
      args.addAll(List.of("-s", savepoint));
    }
    // The job jar is read by every JVM from the path it has on disk, as every pod of an image
    // reads it from usrlib/: the job ships a jar holding only a manifest and names the real one by
    // its URL (-C, pipeline.classpaths). A TaskManager that never ran the job then builds its
    // class loader from the local file instead of fetching ~180 MB from the blob server first.
    Path jar = jobJar.toAbsolutePath();
    args.addAll(List.of("-C", jar.toUri().toString(), "-c", mainClassOf(jar)));
    args.add(emptyJar().toString());
    args.addAll(job.programArguments());
    String output = cli(args, clientEnvironment);
    Matcher matcher = JOB_ID.matcher(output);
    if (!matcher.find()) {
      throw new StackException("flink run printed no job id:\n" + output);
    }
    return matcher.group(1);
  }

  /**
   * {@code flink stop --savepointPath <dir> <jobId>}: a final savepoint, then the job ends.
   *
   * @return the savepoint's path, for {@link #submit(Path, int, String, TallyJobLauncher)}
   */
  public String stopWithSavepoint(String jobId, Path savepointDir) {
    String output =
        cli(List.of("stop", "--savepointPath", savepointDir.toUri().toString(), jobId), Map.of());
    Matcher matcher = SAVEPOINT_PATH.matcher(output);
    if (!matcher.find()) {
      throw new StackException("flink stop printed no savepoint path:\n" + output);
    }
    return matcher.group(1);
  }

  /** {@code flink cancel <jobId>}. */
  public void cancel(String jobId) {
    cli(List.of("cancel", jobId), Map.of());
  }

  /** Stops the TaskManagers, then the JobManager; logs and checkpoints stay on disk. */
  @Override
  public void close() {
    RuntimeException failure = null;
    List<ServiceProcess> all = new ArrayList<>(taskManagers);
    all.add(jobManager);
    for (ServiceProcess process : all) {
      try {
        process.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "FlinkCluster[" + restAddress() + ", " + taskManagers.size() + " TaskManagers started]";
  }

  private String cli(List<String> args, Map<String, String> clientEnvironment) {
    String name = "flink-cli-" + cliSequence.incrementAndGet();
    Map<String, String> env = new LinkedHashMap<>(environment);
    env.putAll(clientEnvironment);
    ServiceProcess cli =
        builder(name, dir, confDir, classpath, env)
            .mainClass("org.apache.flink.client.cli.CliFrontend")
            .args(args.toArray(String[]::new))
            .jvmOptions("-Xmx512m")
            .env("FLINK_CONF_DIR", confDir.toString())
            .logFile(dir.resolve(name + ".log"))
            .start();
    cli.awaitSuccessfulExit(CLI_TIMEOUT);
    try {
      return Files.readString(cli.logFile(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void launchTaskManager() {
    String id = "taskmanager-" + taskManagerSequence.getAndIncrement();
    List<String> jvm = new ArrayList<>(taskManagerJvm);
    Path archive = classArchive;
    if (archive != null) {
      // -Xlog:cds: the log says whether the archive was mapped or refused (and why).
      jvm.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds"));
    } else if (classArchives) {
      // A JVM that maps a dynamic archive cannot record one, so only these can be trained.
      jvm.add("-XX:+RecordDynamicDumpInfo");
    }
    ServiceProcess tm =
        builder(id, dir, confDir, classpath, environment)
            .mainClass("org.apache.flink.runtime.taskexecutor.TaskManagerRunner")
            .args("--configDir", confDir.toString(), "-Dtaskmanager.resource-id=" + id)
            .jvmOptions(jvm.toArray(String[]::new))
            .logFile(dir.resolve(id + ".log"))
            .start();
    taskManagers.add(tm);
  }

  private void awaitTaskManagers(List<String> expected) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (true) {
      for (ServiceProcess tm : taskManagers) {
        if (!tm.isAlive() && !stopped.contains(tm) && tm.exitCode().orElse(137) != 137) {
          throw new StackException(
              tm.name() + " exited with code " + tm.exitCode().orElse(-1) + ":\n" + tm.logTail());
        }
      }
      try {
        if (registeredTaskManagers().containsAll(expected)) {
          return;
        }
      } catch (RuntimeException e) {
        // The REST endpoint answers while the JobManager boots; keep polling until the deadline.
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new StackException(
            "the JobManager did not register TaskManagers "
                + expected
                + " within "
                + READY_TIMEOUT
                + "\n"
                + jobManager.logTail());
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StackException("interrupted", e);
      }
    }
  }

  private static ServiceProcess.Builder builder(
      String name, Path dir, Path confDir, List<Path> classpath, Map<String, String> env) {
    ServiceProcess.Builder builder =
        ServiceProcess.builder(name)
            .classpath(classpath)
            .workingDirectory(dir)
            .removeInheritedEnv("AWS_")
            .removeInheritedEnv("FLINK_")
            .removeInheritedEnv("HADOOP_")
            .jvmOptions(JDK17_OPENS.toArray(String[]::new))
            .jvmOptions(
                "-Djava.io.tmpdir=" + dir.resolve("tmp"),
                "-Dlog4j.configurationFile=" + confDir.resolve("log4j.properties").toUri(),
                "-Dlog4j2.configurationFile=" + confDir.resolve("log4j.properties").toUri());
    env.forEach(builder::env);
    return builder;
  }

  private static void writeConfig(Path confDir, Map<String, String> config) {
    StringBuilder yaml =
        new StringBuilder(
            "# Written by dev.tally.stack.FlinkCluster for a loopback-only cluster.\n");
    config.forEach((key, value) -> yaml.append(key).append(": ").append(quote(value)).append('\n'));
    try {
      Files.createDirectories(confDir);
      Files.writeString(confDir.resolve("config.yaml"), yaml, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the Flink configuration in " + confDir, e);
    }
  }

  /**
   * Extracts RocksDB's JNI library from RocksDB's jar on {@code classpath} into {@code directory},
   * once for every TaskManager of the cluster, as an image does at build time (docs/deployment.md).
   * RocksDB's loader tries {@code System.loadLibrary} first and extracts the library from its jar
   * into a fresh temporary directory only when that fails: on the library path, a TaskManager that
   * never ran the job loads it at its first RocksDB backend without extracting ~13 MB, which its
   * first keyed task waited for (0.2–0.4 s on the bench).
   *
   * @return the library, or empty when the platform has none in the jar or no RocksDB jar is on the
   *     class path
   */
  static java.util.Optional<Path> extractRocksDbLibrary(List<Path> classpath, Path directory) {
    if (ROCKSDB_JNI_LIBRARY == null) {
      return java.util.Optional.empty();
    }
    for (Path jar : classpath) {
      if (!jar.getFileName().toString().matches("f?rocksdbjni-.*\\.jar")) {
        continue;
      }
      try (JarFile file = new JarFile(jar.toFile())) {
        java.util.jar.JarEntry entry = file.getJarEntry(ROCKSDB_JNI_LIBRARY);
        if (entry == null) {
          continue;
        }
        Files.createDirectories(directory);
        Path library = directory.resolve(ROCKSDB_JNI_LIBRARY);
        try (java.io.InputStream in = file.getInputStream(entry)) {
          Files.copy(in, library, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return java.util.Optional.of(library);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot extract RocksDB's library from " + jar, e);
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * The file RocksDB's loader asks {@code System.loadLibrary} for after its shared name: {@code
   * rocksdbjni-<platform>} ({@code org.rocksdb.util.Environment#getJniLibraryName}), for the
   * platforms of glibc Linux its jar carries; null elsewhere.
   */
  private static String rocksDbJniLibrary() {
    if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).startsWith("linux")) {
      return null;
    }
    String platform =
        switch (System.getProperty("os.arch", "")) {
          case "amd64", "x86_64" -> "linux64";
          case "aarch64" -> "linux-aarch64";
          case "ppc64le" -> "linux-ppc64le";
          default -> null;
        };
    return platform == null ? null : System.mapLibraryName("rocksdbjni-" + platform);
  }

  private static String mainClassOf(Path jar) {
    try (JarFile file = new JarFile(jar.toFile())) {
      Manifest manifest = file.getManifest();
      String main = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
      if (main == null) {
        throw new StackException(jar + " names no Main-Class");
      }
      return main;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + jar, e);
    }
  }

  /** A jar holding only a manifest: what a job ships when its classes come from -C. */
  private Path emptyJar() {
    Path jar = dir.resolve("empty-job.jar");
    if (!Files.exists(jar)) {
      Manifest manifest = new Manifest();
      manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
      try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + jar, e);
      }
    }
    return jar;
  }

  private static String quote(String value) {
    return value.matches("[A-Za-z0-9._/:-]+") && !value.startsWith(":")
        ? value
        : "'" + value.replace("'", "''") + "'";
  }

  private static void createDirectory(Path directory) {
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long asLong(Object value) {
    return value == null ? 0 : ((Number) value).longValue();
  }
}
