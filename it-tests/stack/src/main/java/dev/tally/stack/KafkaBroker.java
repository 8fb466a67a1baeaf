package dev.tally.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node Kafka broker (KRaft, broker and controller in one JVM) on loopback ports.
 *
 * <p>The storage is formatted once, at {@link #start(Path)}; {@link #stop()} and {@link #restart()}
 * keep the ports, the cluster id and the log directories, so fault-injection tests can take the
 * broker away and bring it back with its committed data.
 *
 * <p>{@link #startSecured} adds a second client listener that takes only TLS with SASL SCRAM
 * ({@code SASL_SSL}, {@value #SCRAM_MECHANISM}) for one user, as a secured production cluster does;
 * the plaintext listener stays for the stack's own tools (topic creation, test producers and
 * readers).
 */
public final class KafkaBroker implements AutoCloseable {
  /** The SASL mechanism of the secured listener. */
  public static final String SCRAM_MECHANISM = "SCRAM-SHA-512";

  private static final String SERVICE = "kafka";
  private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration ADMIN_CALL_TIMEOUT = Duration.ofSeconds(30);

  private final Path workDir;
  private final Path config;
  private final Path log4jConfig;
  private final int brokerPort;
  private final List<Path> classpath;
  private final Admin admin;
  private final ScramUser user;
  private final BrokerTls tls;
  private final int securedPort;
  private ServiceProcess process;

  /**
   * The one user of the secured listener.
   *
   * @param name the SCRAM user name
   * @param password its password; never part of {@link #toString()}
   */
  public record ScramUser(String name, String password) {
    public ScramUser {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(password, "password");
    }

    @Override
    public String toString() {
      return "ScramUser[" + name + "]";
    }
  }

  private KafkaBroker(
      Path workDir, int brokerPort, int controllerPort, List<Path> classpath, ScramUser user) {
    this.workDir = workDir;
    this.brokerPort = brokerPort;
    this.classpath = classpath;
    this.user = user;
    this.tls = user == null ? null : BrokerTls.generate(workDir.resolve("tls"));
    this.securedPort = user == null ? -1 : LoopbackPorts.freePort();
    this.config = writeServerProperties(workDir, brokerPort, controllerPort, securedPort, tls);
    this.log4jConfig =
        ServiceClasspath.copyResource(
            "kafka-log4j2.properties", workDir.resolve("config/log4j2.properties"));
    this.admin = Admin.create(adminConfig(bootstrapServers()));
  }

  /**
   * Formats a new single-node cluster under {@code workDir} and starts the broker.
   *
   * @param workDir a directory owned by this broker: configuration, data and {@code kafka.log}
   * @throws StackException if the broker does not come up; the message has the log's tail
   */
  public static KafkaBroker start(Path workDir) {
    return start(workDir, null);
  }

  /**
   * As {@link #start(Path)}, with a second client listener that takes only {@code SASL_SSL}: TLS
   * with a fresh self-signed certificate ({@link #tls()}) and SCRAM for {@code user}, created
   * before this returns.
   */
  public static KafkaBroker startSecured(Path workDir, ScramUser user) {
    return start(workDir, Objects.requireNonNull(user, "user"));
  }

  private static KafkaBroker start(Path workDir, ScramUser user) {
    Objects.requireNonNull(workDir, "workDir");
    KafkaBroker broker =
        new KafkaBroker(
            workDir.toAbsolutePath(),
            LoopbackPorts.freePort(),
            LoopbackPorts.freePort(),
            ServiceClasspath.of(SERVICE),
            user);
    try {
      broker.format();
      broker.launch();
      if (user != null) {
        broker.createScramUser();
      }
      return broker;
    } catch (RuntimeException e) {
      broker.close();
      throw e;
    }
  }

  /** {@code host:port} of the broker's client listener. */
  public String bootstrapServers() {
    return LoopbackPorts.HOST + ":" + brokerPort;
  }

  /** {@code host:port} of the secured ({@code SASL_SSL}) listener of {@link #startSecured}. */
  public String securedBootstrapServers() {
    requireSecured();
    return LoopbackPorts.HOST + ":" + securedPort;
  }

  /** The secured listener's TLS identity; its trust store is what clients need. */
  public BrokerTls tls() {
    requireSecured();
    return tls;
  }

  /**
   * Client properties for the secured listener, with {@code password} in the JAAS line (the right
   * one or not): for the tests' own clients. A Tally job takes the same keys under {@code
   * kafka.properties.}, with the password from the environment.
   */
  public Map<String, String> securedClientProperties(String password) {
    requireSecured();
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, securedBootstrapServers());
    properties.put("security.protocol", "SASL_SSL");
    properties.put("sasl.mechanism", SCRAM_MECHANISM);
    properties.put("sasl.jaas.config", jaasConfig(user.name(), password));
    properties.put("ssl.truststore.type", "PEM");
    properties.put("ssl.truststore.location", tls.trustStore().toString());
    return properties;
  }

  /** The JAAS line of a SCRAM client: {@code password} is put in as it is, e.g. {@code ${ENV}}. */
  public static String jaasConfig(String userName, String password) {
    return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
        + userName
        + "\" password=\""
        + password
        + "\";";
  }

  /** The current broker process, e.g. for its pid, log file and memory use. */
  public ServiceProcess process() {
    return process;
  }

  /** Whether the broker process is running. */
  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * Creates a topic with replication factor 1 and waits until every partition has a leader.
   *
   * @param config topic configuration, e.g. {@code retention.ms=-1} so replayed old records stay
   */
  public void createTopic(String name, int partitions, Map<String, String> config) {
    NewTopic topic = new NewTopic(name, partitions, (short) 1).configs(Map.copyOf(config));
    call(admin.createTopics(List.of(topic)).all(), "create topic " + name);
    long deadline = System.nanoTime() + ADMIN_CALL_TIMEOUT.toNanos();
    while (true) {
      TopicDescription description = describeIfKnown(name);
      boolean led =
          description != null
              && description.partitions().size() == partitions
              && description.partitions().stream().allMatch(p -> p.leader() != null);
      if (led) {
        return;
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new StackException(
            "topic " + name + " has partitions without a leader: " + description);
      }
      sleepBriefly();
    }
  }

  /**
   * Deletes a topic, if it exists, and waits until the broker no longer knows it, so that {@link
   * #createTopic} can create it afresh: e.g. to give a job that reads a fixed topic name from its
   * first offset an empty topic.
   */
  public void deleteTopic(String name) {
    if (describeIfKnown(name) == null) {
      return;
    }
    call(admin.deleteTopics(List.of(name)).all(), "delete topic " + name);
    long deadline = System.nanoTime() + ADMIN_CALL_TIMEOUT.toNanos();
    while (describeIfKnown(name) != null) {
      if (System.nanoTime() - deadline >= 0) {
        throw new StackException("topic " + name + " is still known after its deletion");
      }
      sleepBriefly();
    }
  }

  /**
   * Stops the broker gracefully (it closes its logs), keeping its data; {@link #restart()} brings
   * it back. Does nothing if it is not running.
   */
  public void stop() {
    if (process != null) {
      process.close();
    }
  }

  /** Stops the broker if it runs and starts it again on the same ports with the same data. */
  public void restart() {
    stop();
    launch();
  }

  /** Stops the broker and releases the admin client; the data stays on disk. */
  @Override
  public void close() {
    try {
      admin.close(Duration.ofSeconds(5));
    } finally {
      stop();
    }
  }

  @Override
  public String toString() {
    return "KafkaBroker[" + bootstrapServers() + ", " + workDir + "]";
  }

  private void requireSecured() {
    if (user == null) {
      throw new IllegalStateException("the broker was started without a secured listener");
    }
  }

  /**
   * Creates the SCRAM credential through the plaintext listener and waits until the secured one
   * accepts it: the credential reaches the broker through the metadata log, shortly after.
   */
  private void createScramUser() {
    call(
        admin
            .alterUserScramCredentials(
                List.of(
                    new UserScramCredentialUpsertion(
                        user.name(),
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192),
                        user.password())))
            .all(),
        "create the SCRAM user " + user.name());
    Properties secured = adminConfig(securedBootstrapServers());
    secured.putAll(securedClientProperties(user.password()));
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    try (Admin client = Admin.create(secured)) {
      while (true) {
        try {
          client
              .describeCluster()
              .nodes()
              .get(ADMIN_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          return;
        } catch (ExecutionException | TimeoutException e) {
          if (System.nanoTime() - deadline >= 0) {
            throw new StackException(
                "the secured listener " + securedBootstrapServers() + " refuses " + user, e);
          }
          sleepBriefly();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StackException("interrupted: await the SCRAM user " + user.name(), e);
        }
      }
    }
  }

  private void format() {
    // A static voter set (controller.quorum.voters) needs no --standalone or --initial-controllers.
    ServiceProcess formatter =
        baseProcess("kafka-format")
            .mainClass("kafka.tools.StorageTool")
            .args(
                "format",
                "--cluster-id",
                Uuid.randomUuid().toString(),
                "--config",
                config.toString(),
                "--ignore-formatted")
            .logFile(workDir.resolve("kafka-format.log"))
            .start();
    formatter.awaitSuccessfulExit(FORMAT_TIMEOUT);
  }

  private void launch() {
    process =
        baseProcess(SERVICE)
            .mainClass("kafka.Kafka")
            .args(config.toString())
            .logFile(workDir.resolve("kafka.log"))
            .start();
    process.awaitReady(
        READY_TIMEOUT,
        () ->
            !admin
                .describeCluster()
                .nodes()
                .get(ADMIN_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .isEmpty());
  }

  private ServiceProcess.Builder baseProcess(String name) {
    return ServiceProcess.builder(name)
        .classpath(classpath)
        .workingDirectory(workDir)
        .jvmOptions(
            "-Xms64m",
            "-Xmx384m",
            "-Djava.io.tmpdir=" + tmpDir(workDir),
            "-Dlog4j2.configurationFile=" + log4jConfig.toUri());
  }

  private static Path tmpDir(Path workDir) {
    Path tmp = workDir.resolve("tmp");
    try {
      return Files.createDirectories(tmp);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path writeServerProperties(
      Path workDir, int brokerPort, int controllerPort, int securedPort, BrokerTls tls) {
    String host = LoopbackPorts.HOST;
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("process.roles", "broker,controller");
    settings.put("node.id", "1");
    settings.put("controller.quorum.voters", "1@" + host + ":" + controllerPort);
    String plaintext = "PLAINTEXT://" + host + ":" + brokerPort;
    String secured = tls == null ? "" : ",SASL_SSL://" + host + ":" + securedPort;
    settings.put("listeners", plaintext + secured + ",CONTROLLER://" + host + ":" + controllerPort);
    settings.put("advertised.listeners", plaintext + secured);
    settings.put("controller.listener.names", "CONTROLLER");
    settings.put("inter.broker.listener.name", "PLAINTEXT");
    settings.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT" + (tls == null ? "" : ",SASL_SSL:SASL_SSL"));
    if (tls != null) {
      String mechanism = SCRAM_MECHANISM.toLowerCase(java.util.Locale.ROOT);
      settings.put("sasl.enabled.mechanisms", SCRAM_MECHANISM);
      settings.put(
          "listener.name.sasl_ssl." + mechanism + ".sasl.jaas.config",
          "org.apache.kafka.common.security.scram.ScramLoginModule required;");
      settings.put("ssl.keystore.type", "PKCS12");
      settings.put("ssl.keystore.location", tls.keyStore().toString());
      settings.put("ssl.keystore.password", tls.keyStorePassword());
      settings.put("ssl.key.password", tls.keyStorePassword());
    }
    settings.put("log.dirs", workDir.resolve("data").toString());
    // One node: every internal topic has one replica, and nothing waits for others.
    settings.put("offsets.topic.replication.factor", "1");
    settings.put("offsets.topic.num.partitions", "4");
    settings.put("transaction.state.log.replication.factor", "1");
    settings.put("transaction.state.log.min.isr", "1");
    settings.put("transaction.state.log.num.partitions", "4");
    settings.put("share.coordinator.state.topic.replication.factor", "1");
    settings.put("share.coordinator.state.topic.min.isr", "1");
    settings.put("min.insync.replicas", "1");
    settings.put("default.replication.factor", "1");
    settings.put("group.initial.rebalance.delay.ms", "0");
    // Tests create their topics explicitly, with the configuration they assert on.
    settings.put("auto.create.topics.enable", "false");
    // Flink's exactly-once Kafka sink keeps transactions open across checkpoints; allow an hour.
    settings.put("transaction.max.timeout.ms", "3600000");
    Path file = workDir.resolve("config/server.properties");
    Properties properties = new Properties();
    properties.putAll(settings);
    try {
      Files.createDirectories(file.getParent());
      try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
        properties.store(out, "Tally local stack: single-node KRaft broker");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    return file;
  }

  private static Properties adminConfig(String bootstrapServers) {
    Properties properties = new Properties();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    properties.put(AdminClientConfig.CLIENT_ID_CONFIG, "tally-stack-admin");
    properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
    // Reconnect quickly after a restart instead of backing off for up to a second.
    properties.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
    return properties;
  }

  private <T> T call(org.apache.kafka.common.KafkaFuture<T> future, String what) {
    try {
      return future.get(ADMIN_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("interrupted: " + what, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new StackException(
          "cannot " + what + " on " + bootstrapServers() + ": " + e.getMessage(), e);
    }
  }

  /** The topic's description, or null while its metadata has not reached the broker yet. */
  private TopicDescription describeIfKnown(String name) {
    try {
      return admin
          .describeTopics(List.of(name))
          .allTopicNames()
          .get(ADMIN_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .get(name);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
        return null;
      }
      throw new StackException("cannot describe topic " + name + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("interrupted: describe topic " + name, e);
    } catch (TimeoutException e) {
      throw new StackException("cannot describe topic " + name + ": " + e.getMessage(), e);
    }
  }

  private static void sleepBriefly() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("interrupted", e);
    }
  }
}
