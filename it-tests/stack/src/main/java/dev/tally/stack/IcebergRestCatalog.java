package dev.tally.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A real Iceberg REST catalog: Iceberg's reference server ({@code RESTCatalogServer}, the one the
 * {@code iceberg-rest-fixture} image runs) backed by a JDBC catalog in a SQLite file, writing table
 * metadata through S3FileIO into an {@link ObjectStore}.
 *
 * <p>The server is configured only through {@code CATALOG_*} environment variables ({@code
 * CATALOG_S3_PATH__STYLE__ACCESS} becomes {@code s3.path-style-access}). It listens on a free port;
 * note that the reference server binds all interfaces, it offers no host setting.
 */
public final class IcebergRestCatalog implements AutoCloseable {
  private static final String SERVICE = "iceberg-rest";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final Path dir;
  private final int port;
  private final String warehouse;
  private final ObjectStore store;
  private ServiceProcess process;

  private IcebergRestCatalog(Path dir, int port, String warehouse, ObjectStore store) {
    this.dir = dir;
    this.port = port;
    this.warehouse = warehouse;
    this.store = store;
  }

  /**
   * Starts the catalog server with its SQLite file under {@code workDir} and its warehouse at
   * {@code s3://<bucket>/warehouse} in {@code store}.
   *
   * @throws StackException if {@code GET /v1/config} does not answer 200 in time
   */
  public static IcebergRestCatalog start(Path workDir, ObjectStore store) {
    Objects.requireNonNull(workDir, "workDir");
    Objects.requireNonNull(store, "store");
    Path dir = workDir.toAbsolutePath();
    IcebergRestCatalog catalog =
        new IcebergRestCatalog(
            dir, LoopbackPorts.freePort(), "s3://" + store.bucket() + "/warehouse", store);
    catalog.launch();
    return catalog;
  }

  /**
   * Stops the server, keeping its SQLite file: clients get connection errors until {@link
   * #restart()}. Does nothing if it is not running.
   */
  public void stop() {
    if (process != null) {
      process.close();
    }
  }

  /** Stops the server if it runs and starts it again on the same port with the same catalog. */
  public void restart() {
    stop();
    launch();
  }

  /** Whether the server process is running. */
  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  private void launch() {
    Path tmp;
    try {
      tmp = Files.createDirectories(dir.resolve("tmp"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    process =
        ServiceProcess.builder(SERVICE)
            .classpath(ServiceClasspath.of(SERVICE))
            .mainClass("org.apache.iceberg.rest.RESTCatalogServer")
            .jvmOptions(
                "-Xms32m",
                "-Xmx256m",
                // sqlite-jdbc unpacks its native library here.
                "-Djava.io.tmpdir=" + tmp,
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-Dorg.slf4j.simpleLogger.showDateTime=true")
            // The server reads every CATALOG_* variable as a catalog property: inherit none.
            .removeInheritedEnv("CATALOG_")
            .removeInheritedEnv("AWS_")
            .env("CATALOG_REST_PORT", Integer.toString(port))
            .env("CATALOG_URI", "jdbc:sqlite:" + dir.resolve("catalog.db"))
            .env("CATALOG_WAREHOUSE", warehouse)
            .env("CATALOG_IO__IMPL", "org.apache.iceberg.aws.s3.S3FileIO")
            .env("CATALOG_S3_ENDPOINT", store.endpoint())
            .env("CATALOG_S3_PATH__STYLE__ACCESS", "true")
            .env("CATALOG_S3_ACCESS__KEY__ID", store.accessKey())
            .env("CATALOG_S3_SECRET__ACCESS__KEY", store.secretKey())
            .env("CATALOG_CLIENT_REGION", store.region())
            .envAll(store.awsClientEnvironment())
            .workingDirectory(dir)
            .logFile(dir.resolve("iceberg-rest.log"))
            .start();

    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest probe =
        HttpRequest.newBuilder(URI.create(uri(port) + "/v1/config"))
            .timeout(Duration.ofSeconds(5))
            .GET()
            .build();
    process.awaitReady(
        READY_TIMEOUT,
        () -> http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
  }

  /** The catalog's base URI, {@code http://127.0.0.1:<port>}: the {@code uri} catalog property. */
  public String uri() {
    return uri(port);
  }

  /** The warehouse location, {@code s3://<bucket>/warehouse}. */
  public String warehouse() {
    return warehouse;
  }

  /**
   * Catalog properties for an Iceberg {@code RESTCatalog} client (or a Flink Iceberg catalog) that
   * reads and writes data files in this stack's object store.
   *
   * <p>The client JVM also needs {@code -Daws.requestChecksumCalculation=WHEN_REQUIRED} and {@code
   * -Daws.responseChecksumValidation=WHEN_REQUIRED} (or the matching {@code AWS_*} environment
   * variables), which no catalog property can set.
   */
  public Map<String, String> clientProperties() {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("uri", uri());
    properties.put("warehouse", warehouse);
    properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    properties.put("s3.endpoint", store.endpoint());
    properties.put("s3.path-style-access", "true");
    properties.put("s3.access-key-id", store.accessKey());
    properties.put("s3.secret-access-key", store.secretKey());
    properties.put("client.region", store.region());
    return Collections.unmodifiableMap(properties);
  }

  /** The server process, e.g. for its pid, log file and memory use. */
  public ServiceProcess process() {
    return process;
  }

  /** Stops the server; the SQLite file and the objects stay. */
  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return "IcebergRestCatalog[" + uri() + ", " + warehouse + "]";
  }

  private static String uri(int port) {
    return "http://" + LoopbackPorts.HOST + ":" + port;
  }
}
