package dev.tally.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * A real S3-compatible object store: S3Proxy on the local file system, on a loopback port, with
 * path-style addressing and AWS signature checks (v2 or v4).
 *
 * <p>The access key and secret are generated per start: they only guard a loopback port of a
 * throwaway store, and generating them keeps anything secret-looking out of the repository. The
 * bucket exists from the start, because with the {@code filesystem-nio2} backend a bucket is a
 * directory under the base directory.
 */
public final class ObjectStore implements AutoCloseable {
  /** The one bucket of the stack; the Iceberg warehouse lives under it. */
  public static final String DEFAULT_BUCKET = "tally";

  private static final String SERVICE = "s3";
  private static final String REGION = "us-east-1";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final int port;
  private final String bucket;
  private final String accessKey;
  private final String secretKey;
  private final Path dataDir;
  private final ServiceProcess process;

  private ObjectStore(
      int port,
      String bucket,
      String accessKey,
      String secretKey,
      Path dataDir,
      ServiceProcess process) {
    this.port = port;
    this.bucket = bucket;
    this.accessKey = accessKey;
    this.secretKey = secretKey;
    this.dataDir = dataDir;
    this.process = process;
  }

  /**
   * Starts S3Proxy with its data under {@code workDir} and the bucket {@value #DEFAULT_BUCKET}.
   *
   * @throws StackException if it does not answer HTTP in time; the message has the log's tail
   */
  public static ObjectStore start(Path workDir) {
    Objects.requireNonNull(workDir, "workDir");
    Path dir = workDir.toAbsolutePath();
    int port = LoopbackPorts.freePort();
    String accessKey = "tally-" + randomHex(6);
    String secretKey = randomHex(20);
    Path dataDir = dir.resolve("data");
    try {
      Files.createDirectories(dataDir.resolve(DEFAULT_BUCKET));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the bucket directory under " + dataDir, e);
    }
    String endpoint = "http://" + LoopbackPorts.HOST + ":" + port;

    Properties settings = new Properties();
    settings.put("s3proxy.endpoint", endpoint);
    settings.put("s3proxy.authorization", "aws-v2-or-v4");
    settings.put("s3proxy.identity", accessKey);
    settings.put("s3proxy.credential", secretKey);
    settings.put("jclouds.provider", "filesystem-nio2");
    settings.put("jclouds.filesystem.basedir", dataDir.toString());
    // The local back end ignores them, but S3Proxy refuses to start without them.
    settings.put("jclouds.identity", accessKey);
    settings.put("jclouds.credential", secretKey);
    Path config = dir.resolve("config/s3proxy.properties");
    Path logback =
        ServiceClasspath.copyResource("s3-logback.xml", dir.resolve("config/logback.xml"));
    write(config, settings);

    ServiceProcess process =
        ServiceProcess.builder(SERVICE)
            .classpath(ServiceClasspath.of(SERVICE))
            .mainClass("org.gaul.s3proxy.Main")
            .args("--properties", config.toString())
            .jvmOptions(
                "-Xms32m",
                "-Xmx256m",
                "-Djava.io.tmpdir=" + createDirectory(dir.resolve("tmp")),
                "-Dlogback.configurationFile=" + logback)
            .workingDirectory(dir)
            .logFile(dir.resolve("s3proxy.log"))
            .start();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest probe =
        HttpRequest.newBuilder(URI.create(endpoint + "/"))
            .timeout(Duration.ofSeconds(5))
            .GET()
            .build();
    // Any HTTP answer (an unsigned request gets 403) means S3Proxy serves requests.
    process.awaitReady(
        READY_TIMEOUT,
        () -> http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() > 0);
    return new ObjectStore(port, DEFAULT_BUCKET, accessKey, secretKey, dataDir, process);
  }

  /** The S3 endpoint, {@code http://127.0.0.1:<port>}; clients must use path-style access. */
  public String endpoint() {
    return "http://" + LoopbackPorts.HOST + ":" + port;
  }

  /** The bucket that exists from the start. */
  public String bucket() {
    return bucket;
  }

  /** The access key id clients sign with. */
  public String accessKey() {
    return accessKey;
  }

  /** The secret access key clients sign with. */
  public String secretKey() {
    return secretKey;
  }

  /** The region clients should name; S3Proxy accepts any, the AWS SDK insists on one. */
  public String region() {
    return REGION;
  }

  /**
   * The environment a JVM using {@code S3FileIO} against this store needs: static keys and region
   * from the AWS SDK's default chain, no instance-metadata lookups, and no checksums S3Proxy
   * rejects (HTTP 400 on {@code x-amz-content-sha256}).
   */
  public Map<String, String> awsClientEnvironment() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("AWS_REGION", region());
    env.put("AWS_ACCESS_KEY_ID", accessKey());
    env.put("AWS_SECRET_ACCESS_KEY", secretKey());
    env.put("AWS_REQUEST_CHECKSUM_CALCULATION", "WHEN_REQUIRED");
    env.put("AWS_RESPONSE_CHECKSUM_VALIDATION", "WHEN_REQUIRED");
    env.put("AWS_EC2_METADATA_DISABLED", "true");
    return Collections.unmodifiableMap(env);
  }

  /**
   * Where the objects are on disk: {@code <dataDir>/<bucket>/<key>}. Lets tests check that data
   * really landed in the store.
   */
  public Path dataDirectory() {
    return dataDir;
  }

  /** The S3Proxy process, e.g. for its pid, log file and memory use. */
  public ServiceProcess process() {
    return process;
  }

  /** Stops S3Proxy; the objects stay on disk. */
  @Override
  public void close() {
    process.close();
  }

  @Override
  public String toString() {
    return "ObjectStore[" + endpoint() + ", bucket " + bucket + "]";
  }

  private static String randomHex(int bytes) {
    byte[] random = new byte[bytes];
    new SecureRandom().nextBytes(random);
    return HexFormat.of().formatHex(random);
  }

  private static Path createDirectory(Path dir) {
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, Properties properties) {
    try {
      Files.createDirectories(file.getParent());
      try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
        properties.store(out, "Tally local stack: S3Proxy");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
