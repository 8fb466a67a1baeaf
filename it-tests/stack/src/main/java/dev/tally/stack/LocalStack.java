package dev.tally.stack;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The whole local stack: a Kafka broker, an S3-compatible object store and an Iceberg REST catalog
 * writing to it, each a real service in its own JVM under one root directory.
 *
 * <p>The object store starts first because the catalog needs its endpoint and keys; the broker
 * needs neither and starts at the same time on another thread, which is most of the wall time.
 * {@link #close()} stops them in reverse order. If any service fails to start, the ones already up
 * are stopped before the failure is thrown.
 */
public final class LocalStack implements AutoCloseable {
  private final Path rootDir;
  private final ObjectStore objectStore;
  private final IcebergRestCatalog catalog;
  private final KafkaBroker kafka;
  private final Duration startup;

  private LocalStack(
      Path rootDir,
      ObjectStore objectStore,
      IcebergRestCatalog catalog,
      KafkaBroker kafka,
      Duration startup) {
    this.rootDir = rootDir;
    this.objectStore = objectStore;
    this.catalog = catalog;
    this.kafka = kafka;
    this.startup = startup;
  }

  /**
   * Starts every service, each in a subdirectory of {@code rootDir} ({@code kafka}, {@code s3},
   * {@code iceberg-rest}) holding its configuration, data and log.
   *
   * @throws StackException if a service does not come up; the others are stopped first
   */
  public static LocalStack start(Path rootDir) {
    return start(rootDir, null);
  }

  /**
   * As {@link #start(Path)}, with the broker's secured listener ({@link KafkaBroker#startSecured})
   * for {@code user}; {@link #tallyServices()} still points at the plaintext one.
   */
  public static LocalStack startSecured(Path rootDir, KafkaBroker.ScramUser user) {
    return start(rootDir, Objects.requireNonNull(user, "user"));
  }

  private static LocalStack start(Path rootDir, KafkaBroker.ScramUser user) {
    Objects.requireNonNull(rootDir, "rootDir");
    Path root = rootDir.toAbsolutePath();
    long started = System.nanoTime();
    ExecutorService kafkaStarter =
        Executors.newSingleThreadExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "tally-stack-kafka-start");
              thread.setDaemon(true);
              return thread;
            });
    CompletableFuture<KafkaBroker> kafka =
        CompletableFuture.supplyAsync(
            () ->
                user == null
                    ? KafkaBroker.start(root.resolve("kafka"))
                    : KafkaBroker.startSecured(root.resolve("kafka"), user),
            kafkaStarter);
    kafkaStarter.shutdown();

    ObjectStore store = null;
    IcebergRestCatalog catalog = null;
    try {
      store = ObjectStore.start(root.resolve("s3"));
      catalog = IcebergRestCatalog.start(root.resolve("iceberg-rest"), store);
      KafkaBroker broker = kafka.join();
      return new LocalStack(
          root, store, catalog, broker, Duration.ofNanos(System.nanoTime() - started));
    } catch (RuntimeException e) {
      RuntimeException failure = unwrap(e);
      // The broker may still be starting: wait for it, so it can be stopped rather than leaked.
      try {
        kafka.join().close();
      } catch (RuntimeException kafkaFailure) {
        if (unwrap(kafkaFailure) != failure) {
          failure.addSuppressed(unwrap(kafkaFailure));
        }
      }
      closeQuietly(catalog, failure);
      closeQuietly(store, failure);
      throw failure;
    }
  }

  /** The Kafka broker. */
  public KafkaBroker kafka() {
    return kafka;
  }

  /** The S3-compatible object store. */
  public ObjectStore objectStore() {
    return objectStore;
  }

  /** The Iceberg REST catalog, writing into {@link #objectStore()}. */
  public IcebergRestCatalog catalog() {
    return catalog;
  }

  /** Where a Tally job reaches this stack's services, for its {@link TallyYaml}. */
  public TallyYaml.Services tallyServices() {
    return new TallyYaml.Services(
        kafka.bootstrapServers(),
        catalog.uri(),
        catalog.warehouse(),
        objectStore.endpoint(),
        objectStore.region());
  }

  /**
   * What the scripts of {@code examples/sql} read from the environment (docs/sql.md) to read this
   * stack's topic from its first offset, unbounded: a live job, which runs until it is stopped.
   */
  public Map<String, String> sqlScriptEnvironment() {
    return Map.of(
        "KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers(),
        "ICEBERG_REST_URI", catalog.uri(),
        "ICEBERG_WAREHOUSE", catalog.warehouse(),
        "S3_ENDPOINT", objectStore.endpoint(),
        "S3_PATH_STYLE_ACCESS", "true",
        "SCAN_STARTUP_MODE", "earliest-offset");
  }

  /**
   * {@link #sqlScriptEnvironment()}, bounded: the job reads to the offsets current at its start and
   * ends, its final watermark fires every window, and its last checkpoint commits.
   */
  public Map<String, String> boundedSqlScriptEnvironment() {
    Map<String, String> environment = new HashMap<>(sqlScriptEnvironment());
    environment.put("SCAN_BOUNDED_MODE", "latest-offset");
    return Map.copyOf(environment);
  }

  /** The directory under which every service keeps its configuration, data and log. */
  public Path rootDirectory() {
    return rootDir;
  }

  /** How long {@link #start(Path)} took until every service was ready. */
  public Duration startup() {
    return startup;
  }

  /** Stops the catalog, the object store and the broker, in that order; data stays on disk. */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (AutoCloseable service : new AutoCloseable[] {catalog, objectStore, kafka}) {
      try {
        service.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new StackException("the local stack did not stop cleanly", e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * A human-readable summary: endpoints, credentials of the throwaway store, pids, startup times,
   * memory and log files.
   */
  public String describe() {
    StringBuilder text = new StringBuilder();
    text.append("Tally local stack in ").append(rootDir).append(" (ready in ");
    text.append(startup.toMillis()).append(" ms)\n");
    text.append("  Kafka bootstrap servers  ").append(kafka.bootstrapServers()).append('\n');
    text.append("  S3 endpoint              ").append(objectStore.endpoint());
    text.append("  bucket ").append(objectStore.bucket());
    text.append("  region ").append(objectStore.region()).append('\n');
    // The secret is generated per run and only for loopback, but secrets are never printed.
    text.append("  S3 access key            ").append(objectStore.accessKey());
    text.append(" (secret: ObjectStore.secretKey())\n");
    text.append("  Iceberg REST catalog     ").append(catalog.uri());
    text.append("  warehouse ").append(catalog.warehouse()).append('\n');
    line(text, "kafka", kafka.process());
    line(text, "s3proxy", objectStore.process());
    line(text, "iceberg-rest", catalog.process());
    return text.toString();
  }

  private static void line(StringBuilder text, String name, ServiceProcess process) {
    OptionalLong rss = process.residentSetBytes();
    text.append(String.format("  %-12s pid %-7d", name, process.pid()));
    text.append(
        String.format(" ready in %5d ms", process.readyAfter().orElse(Duration.ZERO).toMillis()));
    text.append(rss.isPresent() ? String.format("  RSS %4d MB", rss.getAsLong() >> 20) : "");
    text.append("  log ").append(process.logFile()).append('\n');
  }

  private static RuntimeException unwrap(RuntimeException e) {
    if (e instanceof CompletionException && e.getCause() instanceof RuntimeException cause) {
      return cause;
    }
    return e;
  }

  private static void closeQuietly(AutoCloseable service, RuntimeException failure) {
    if (service == null) {
      return;
    }
    try {
      service.close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }
}
