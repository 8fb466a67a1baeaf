package dev.tally.bench;

import dev.tally.stack.LoopbackPorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The records each task attempt has read, as the TaskManagers' own Prometheus endpoints (Flink's
 * reporter, {@link #settings}) report them at the moment they are asked: the JobManager's REST API
 * shows the same counters only as its metric fetcher last fetched them (every {@code
 * metrics.fetcher.update-interval}, one TaskManager's dump of all its metrics at a time).
 */
final class TaskRecordsIn {

  /** How many ports the reporters may take, one per JVM of the cluster alive at a time. */
  static final int PORTS = 24;

  private static final String METRIC = "flink_taskmanager_job_task_numRecordsIn{";
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final Duration TIMEOUT = Duration.ofMillis(500);

  private final int firstPort;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofMillis(200)).build();
  private final List<Integer> answering = new ArrayList<>();

  /** One attempt of one subtask of a vertex, and the records it has read. */
  record Attempt(String job, String vertex, int subtask, int attempt, double records) {}

  TaskRecordsIn() {
    this.firstPort = LoopbackPorts.freePort();
  }

  /**
   * The reporter's settings for the cluster: Flink's Prometheus reporter in every JVM, on the first
   * free port of this range, exporting only the tasks' {@code numRecordsIn}.
   */
  Map<String, String> settings() {
    return Map.of(
        "metrics.reporter.recovery.factory.class",
        "org.apache.flink.metrics.prometheus.PrometheusReporterFactory",
        "metrics.reporter.recovery.port",
        firstPort + "-" + (firstPort + PORTS - 1),
        "metrics.reporter.recovery.filter.includes",
        "*.task:numRecordsIn");
  }

  /** Finds the ports a reporter answers on now; {@link #attempts} asks only those. */
  void discover() {
    answering.clear();
    for (int port = firstPort; port < firstPort + PORTS; port++) {
      if (scrape(port) != null) {
        answering.add(port);
      }
    }
  }

  /** Every task attempt the endpoints found by {@link #discover} report now; dead ones skipped. */
  List<Attempt> attempts() {
    List<Attempt> all = new ArrayList<>();
    for (int port : answering) {
      String text = scrape(port);
      if (text != null) {
        all.addAll(parse(text));
      }
    }
    return all;
  }

  /**
   * Whether every subtask of {@code vertex} runs an attempt newer than {@code before} with records.
   */
  boolean processing(String job, String vertex, Map<Integer, Integer> before) {
    Map<Integer, Boolean> reading = new HashMap<>();
    for (Attempt a : attempts()) {
      if (a.job().equals(job)
          && a.vertex().equals(vertex)
          && a.attempt() > before.getOrDefault(a.subtask(), Integer.MAX_VALUE)
          && a.records() > 0) {
        reading.put(a.subtask(), true);
      }
    }
    return !before.isEmpty() && reading.keySet().containsAll(before.keySet());
  }

  /** The task attempts of a Prometheus text exposition as Flink's reporter writes it. */
  static List<Attempt> parse(String text) {
    List<Attempt> attempts = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (!line.startsWith(METRIC)) {
        continue;
      }
      int close = line.lastIndexOf('}');
      if (close < 0) {
        continue;
      }
      Map<String, String> labels = new HashMap<>();
      Matcher label = LABEL.matcher(line.substring(METRIC.length(), close));
      while (label.find()) {
        labels.put(label.group(1), label.group(2));
      }
      try {
        attempts.add(
            new Attempt(
                labels.get("job_id"),
                labels.get("task_id"),
                Integer.parseInt(labels.get("subtask_index")),
                Integer.parseInt(labels.get("task_attempt_num")),
                Double.parseDouble(line.substring(close + 1).trim().split("\\s+")[0])));
      } catch (RuntimeException e) {
        // A line without the task's labels or value is not a task attempt's counter.
      }
    }
    return attempts;
  }

  private String scrape(int port) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://" + LoopbackPorts.HOST + ":" + port + "/metrics"))
            .timeout(TIMEOUT)
            .GET()
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? response.body() : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
