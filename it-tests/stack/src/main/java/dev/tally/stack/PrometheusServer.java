package dev.tally.stack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real Prometheus server, Debian's package, scraping targets on loopback; {@link #query} reads
 * values back through Prometheus' own HTTP API ({@code /api/v1/query}), as a dashboard would.
 *
 * <p>The binary is the system property {@value #BINARY_PROPERTY} when set; otherwise the stack
 * fetches Debian's {@code prometheus} package itself, with {@code apt-get download} (no root, apt's
 * own sources) and {@code dpkg-deb -x}, once, into {@code ~/.cache/tally/prometheus} ({@code
 * $XDG_CACHE_HOME} when set), as Maven fetches the other services' jars. It is a Go program that
 * needs nothing else of the package.
 */
public final class PrometheusServer implements AutoCloseable {

  /** A Prometheus executable to use instead of the cached Debian package. */
  public static final String BINARY_PROPERTY = "tally.prometheus.binary";

  private static final String SERVICE = "prometheus";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration FETCH_TIMEOUT = Duration.ofMinutes(5);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final int port;
  private final ServiceProcess process;
  private final HttpClient http;

  private PrometheusServer(int port, ServiceProcess process, HttpClient http) {
    this.port = port;
    this.process = process;
    this.http = http;
  }

  /**
   * Starts Prometheus with its configuration and data under {@code workDir}, scraping each {@code
   * host:port} of {@code targets} at {@code /metrics} every {@code scrapeInterval}, as the job
   * {@code tally}.
   *
   * @throws StackException if there is no binary and none can be fetched, or it does not become
   *     ready in time; the message says why
   */
  public static PrometheusServer start(
      Path workDir, List<String> targets, Duration scrapeInterval) {
    Objects.requireNonNull(workDir, "workDir");
    Path dir = workDir.toAbsolutePath();
    Path binary = binary();
    int port = LoopbackPorts.freePort();
    String interval = scrapeInterval.toMillis() + "ms";
    String config =
        "global:\n"
            + "  scrape_interval: "
            + interval
            + "\n"
            + "  evaluation_interval: "
            + interval
            + "\n"
            + "scrape_configs:\n"
            + "  - job_name: tally\n"
            + "    static_configs:\n"
            + "      - targets: ["
            + targets.stream().map(t -> "'" + t + "'").collect(Collectors.joining(", "))
            + "]\n";
    Path configFile = dir.resolve("prometheus.yml");
    try {
      Files.createDirectories(dir.resolve("data"));
      Files.writeString(configFile, config, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + configFile, e);
    }
    ServiceProcess process =
        ServiceProcess.builder(SERVICE)
            .executable(binary)
            .args(
                "--config.file=" + configFile,
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=" + LoopbackPorts.HOST + ":" + port)
            .workingDirectory(dir)
            .logFile(dir.resolve("prometheus.log"))
            .start();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest ready =
        HttpRequest.newBuilder(URI.create(uri(port) + "/-/ready"))
            .timeout(Duration.ofSeconds(5))
            .GET()
            .build();
    process.awaitReady(
        READY_TIMEOUT,
        () -> http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    return new PrometheusServer(port, process, http);
  }

  /** The server's address, {@code http://127.0.0.1:<port>}: its UI and HTTP API. */
  public String uri() {
    return uri(port);
  }

  /**
   * Evaluates an instant PromQL query now.
   *
   * @return each series of the resulting vector, empty when there is none (yet)
   * @throws StackException when Prometheus refuses the query or cannot be reached
   */
  public List<Sample> query(String promql) {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(
                    uri()
                        + "/api/v1/query?query="
                        + URLEncoder.encode(promql, StandardCharsets.UTF_8)))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      JsonNode answer = JSON.readTree(response.body());
      if (response.statusCode() != 200 || !"success".equals(answer.path("status").asText())) {
        throw new StackException(
            "Prometheus refused " + promql + ": HTTP " + response.statusCode() + " " + answer);
      }
      List<Sample> samples = new ArrayList<>();
      for (JsonNode series : answer.path("data").path("result")) {
        Map<String, String> labels = new LinkedHashMap<>();
        series
            .path("metric")
            .properties()
            .forEach(f -> labels.put(f.getKey(), f.getValue().asText()));
        samples.add(new Sample(labels, Double.parseDouble(series.path("value").get(1).asText())));
      }
      return samples;
    } catch (IOException e) {
      throw new StackException("cannot query Prometheus at " + uri() + ": " + promql, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("interrupted while querying Prometheus", e);
    }
  }

  /** The Prometheus process, e.g. for its pid and log file. */
  public ServiceProcess process() {
    return process;
  }

  /** Stops Prometheus; its data stays on disk. */
  @Override
  public void close() {
    process.close();
  }

  @Override
  public String toString() {
    return "PrometheusServer[" + uri() + "]";
  }

  /** One series of a query's result: its labels ({@code __name__} included) and value. */
  public record Sample(Map<String, String> labels, double value) {
    public Sample {
      labels = Map.copyOf(labels);
    }
  }

  private static String uri(int port) {
    return "http://" + LoopbackPorts.HOST + ":" + port;
  }

  /** The executable: the system property, else the cached Debian package, fetched if missing. */
  static Path binary() {
    String configured = System.getProperty(BINARY_PROPERTY);
    if (configured != null && !configured.isBlank()) {
      Path binary = Path.of(configured);
      if (!Files.isExecutable(binary)) {
        throw new StackException(BINARY_PROPERTY + "=" + configured + " is not an executable file");
      }
      return binary;
    }
    Path root = cacheDirectory().resolve("root");
    Path binary = root.resolve("usr/bin/prometheus");
    if (!Files.isExecutable(binary)) {
      fetchDebianPackage(root);
    }
    return binary;
  }

  private static Path cacheDirectory() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path cache =
        xdg != null && !xdg.isBlank()
            ? Path.of(xdg)
            : Path.of(System.getProperty("user.home"), ".cache");
    return cache.resolve("tally").resolve(SERVICE);
  }

  /**
   * Downloads Debian's package into a fresh directory beside {@code root}, unpacks it there and
   * moves the tree into place in one step, so a concurrent build sees either all of it or nothing.
   */
  private static void fetchDebianPackage(Path root) {
    Path parent = root.getParent();
    Path work;
    try {
      Files.createDirectories(parent);
      work = Files.createTempDirectory(parent, "fetch-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory under " + parent, e);
    }
    try {
      run(
          work,
          List.of("apt-get", "download", SERVICE),
          "the stack fetches Debian's prometheus package with apt-get download");
      Path deb;
      try (Stream<Path> files = Files.list(work)) {
        deb =
            files
                .filter(f -> f.getFileName().toString().endsWith(".deb"))
                .findFirst()
                .orElseThrow(() -> new StackException("apt-get download left no .deb in " + work));
      }
      Path unpacked = work.resolve("root");
      run(work, List.of("dpkg-deb", "-x", deb.toString(), unpacked.toString()), "unpacking " + deb);
      try {
        Files.move(unpacked, root, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        // Another build may have put it there first: then use theirs.
        if (!Files.isExecutable(root.resolve("usr/bin/prometheus"))) {
          throw e;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot fetch Prometheus into " + parent, e);
    } finally {
      deleteTree(work);
    }
  }

  private static void run(Path directory, List<String> command, String what) throws IOException {
    Path output = directory.resolve("command.log");
    Process process;
    try {
      process =
          new ProcessBuilder(command)
              .directory(directory.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
    } catch (IOException e) {
      throw new StackException(
          "Prometheus is needed and "
              + what
              + ", but "
              + command.get(0)
              + " cannot run here ("
              + e.getMessage()
              + "). On a machine without apt, install Prometheus and pass its executable as -D"
              + BINARY_PROPERTY
              + "=/path/to/prometheus.",
          e);
    }
    try {
      if (!process.waitFor(FETCH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new StackException(String.join(" ", command) + " did not finish in " + FETCH_TIMEOUT);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new StackException("interrupted: " + String.join(" ", command), e);
    }
    if (process.exitValue() != 0) {
      throw new StackException(
          String.join(" ", command)
              + " failed with exit code "
              + process.exitValue()
              + " ("
              + what
              + "; with no package lists yet, run apt-get update as root once, or pass -D"
              + BINARY_PROPERTY
              + "=/path/to/prometheus):\n"
              + ServiceProcess.logTail(output, 20));
    }
  }

  private static void deleteTree(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      // Only a leftover download in the cache: the next fetch uses a new directory.
    }
  }
}
