package dev.tally.stack;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.shaded.guava33.com.google.common.hash.Hashing;

/**
 * The one reader of Flink's REST API (a session cluster's JobManager or a local job's web UI): each
 * answer read by Jackson into a record holding the fields Tally's tools use; fields Flink adds are
 * ignored. Every call is a GET, tried again on a connection failure or a 5xx answer (see {@link
 * #text}), but {@link #stopWithDrain}, one POST, tried once; a failure to connect or an answer
 * other than 200 (202 for the POST) that persists throws a {@link StackException} (an {@link
 * UncheckedIOException} for the connection).
 */
public final class FlinkRestClient {

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** How often a GET is tried before its connection failure or 5xx answer is thrown. */
  static final int GET_ATTEMPTS = 3;

  /** The pause between two attempts of a GET. */
  static final Duration RETRY_PAUSE = Duration.ofMillis(200);

  private static final ObjectMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  private final String address;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();

  /**
   * @param address the REST endpoint, e.g. {@code http://127.0.0.1:8081}
   */
  public FlinkRestClient(String address) {
    this.address = Objects.requireNonNull(address, "address");
  }

  /** A client of the REST endpoint on {@code port} of the loopback address. */
  public static FlinkRestClient onLoopback(int port) {
    return new FlinkRestClient("http://" + LoopbackPorts.HOST + ":" + port);
  }

  /**
   * The id Flink gives the job vertex whose chain starts with the operator of {@code uid}: Flink
   * hashes a user-specified uid with murmur3-128 (seed 0) over its UTF-8 bytes ({@code
   * StreamGraphHasherV2}), and a vertex takes the hash of its chain's head. So a tool finds an
   * operator by the uid Tally fixes for savepoint compatibility, never by its display name.
   */
  public static String vertexIdOfUid(String uid) {
    byte[] hash = Hashing.murmur3_128(0).hashString(uid, StandardCharsets.UTF_8).asBytes();
    return HexFormat.of().formatHex(hash);
  }

  /** The REST endpoint this client reads. */
  public String address() {
    return address;
  }

  /** {@code /overview}: the cluster's TaskManager and slot counts. */
  public ClusterOverview overview() {
    return get("/overview", ClusterOverview.class);
  }

  /** {@code /taskmanagers}: the TaskManagers registered at the JobManager. */
  public List<TaskManager> taskManagers() {
    return get("/taskmanagers", TaskManagers.class).taskmanagers();
  }

  /** {@code /jobs/overview}: every job the endpoint knows, running or ended. */
  public List<JobOverview> jobs() {
    return get("/jobs/overview", JobsOverview.class).jobs();
  }

  /** The only job of a local run, once it is submitted; empty before, or while none answers. */
  public Optional<JobOverview> onlyJob() {
    try {
      List<JobOverview> jobs = jobs();
      return jobs.isEmpty() ? Optional.empty() : Optional.of(jobs.get(0));
    } catch (StackException | UncheckedIOException e) {
      // The job's JVM is still starting its web server: no job yet.
      return Optional.empty();
    }
  }

  /** {@code /jobs/:id}: the job's status, transition times and vertices. */
  public JobDetails job(String jobId) {
    return get("/jobs/" + jobId, JobDetails.class);
  }

  /** {@code /jobs/:id/checkpoints}: the job's checkpoint counts and duration statistics. */
  public CheckpointStatistics checkpoints(String jobId) {
    return get("/jobs/" + jobId + "/checkpoints", CheckpointStatistics.class);
  }

  /**
   * {@code /jobs/:id/vertices/:vertex}: each subtask's current execution attempt, its status and
   * the records it has read in that attempt.
   */
  public VertexDetails vertex(String jobId, String vertexId) {
    return get("/jobs/" + jobId + "/vertices/" + vertexId, VertexDetails.class);
  }

  /**
   * {@code /jobs/:id/vertices/:vertex/subtasktimes}: when each subtask's current attempt entered
   * each execution state ({@code DEPLOYING}, {@code INITIALIZING}, {@code RUNNING}, ...), epoch
   * milliseconds.
   */
  public List<Map<String, Long>> subtaskTimes(String jobId, String vertexId) {
    return get("/jobs/" + jobId + "/vertices/" + vertexId + "/subtasktimes", SubtaskTimes.class)
        .subtasks()
        .stream()
        .map(SubtaskTime::timestamps)
        .toList();
  }

  /** {@code /jobs/:id/exceptions}: the failures that made the job restart, newest first. */
  public List<Failure> failures(String jobId) {
    Exceptions answer = get("/jobs/" + jobId + "/exceptions", Exceptions.class);
    return answer.history() == null || answer.history().entries() == null
        ? List.of()
        : answer.history().entries();
  }

  /** The resource ids of the TaskManagers that run a subtask of the vertex. */
  public List<String> taskManagersOf(String jobId, String vertexId) {
    return get(
            "/jobs/" + jobId + "/vertices/" + vertexId + "/taskmanagers", VertexTaskManagers.class)
        .taskmanagers()
        .stream()
        .map(VertexTaskManager::taskManagerId)
        .toList();
  }

  /** The current input watermark of each subtask of the vertex. */
  public List<Watermark> watermarks(String jobId, String vertexId) {
    return List.of(
        get("/jobs/" + jobId + "/vertices/" + vertexId + "/watermarks", Watermark[].class));
  }

  /**
   * The lowest current input watermark over the subtasks of the vertex whose chain starts with the
   * operator of {@code uid}, in epoch milliseconds; empty until every subtask has one.
   */
  public Optional<Long> inputWatermark(String jobId, String uid) {
    return lowestInputWatermark(jobId, vertexIdOfUid(uid));
  }

  /**
   * The lowest current input watermark over the subtasks of the vertex, in epoch milliseconds;
   * empty until every subtask has one.
   */
  public Optional<Long> lowestInputWatermark(String jobId, String vertexId) {
    List<Watermark> marks = watermarks(jobId, vertexId);
    long lowest = marks.stream().mapToLong(Watermark::value).min().orElse(Long.MIN_VALUE);
    return lowest < 0 ? Optional.empty() : Optional.of(lowest);
  }

  /**
   * The current values of the vertex's metrics whose id ends with {@code suffix}, by id ({@code
   * <subtask>.<operator>.<group>.<name>}, e.g. a Kafka source reader's {@code
   * 0.Source__t.KafkaSourceReader.topic.t.partition.3.currentOffset}): {@code
   * /jobs/:id/vertices/:vertex/metrics} lists them, {@code ?get=} reads them, as the JobManager's
   * metric fetcher last fetched them ({@code metrics.fetcher.update-interval}). Empty while none is
   * reported.
   */
  public Map<String, String> vertexMetrics(String jobId, String vertexId, String suffix) {
    String path = "/jobs/" + jobId + "/vertices/" + vertexId + "/metrics";
    List<String> ids =
        Arrays.stream(get(path, Metric[].class))
            .map(Metric::id)
            .filter(id -> id.endsWith(suffix))
            .toList();
    Map<String, String> values = new TreeMap<>();
    if (ids.isEmpty()) {
      return values;
    }
    String query =
        ids.stream()
            .map(id -> URLEncoder.encode(id, StandardCharsets.UTF_8))
            .collect(Collectors.joining(","));
    for (Metric metric : get(path + "?get=" + query, Metric[].class)) {
      if (metric.value() != null) {
        values.put(metric.id(), metric.value());
      }
    }
    return values;
  }

  /**
   * {@code POST /jobs/:id/stop} with {@code drain}: the sources emit the final watermark, which
   * closes every window, and the job ends after a savepoint into {@code directory} that commits the
   * rest. Returns once Flink has accepted the request; the job finishes later.
   *
   * @return the id of Flink's savepoint trigger
   */
  public String stopWithDrain(String jobId, Path directory) {
    String path = "/jobs/" + jobId + "/stop";
    String body;
    try {
      body =
          JSON.writeValueAsString(
              Map.of("drain", true, "targetDirectory", directory.toUri().toString()));
    } catch (JsonProcessingException e) {
      throw new StackException("cannot write the stop request", e);
    }
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(address + path))
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 202 && response.statusCode() != 200) {
        throw new StackException(
            "POST "
                + address
                + path
                + " answered "
                + response.statusCode()
                + ": "
                + response.body());
      }
      return JSON.readTree(response.body()).path("request-id").asText();
    } catch (IOException e) {
      throw new UncheckedIOException("POST " + address + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("interrupted during POST " + address + path, e);
    }
  }

  /**
   * The answer to {@code GET path} as text: for a file kept beside a measurement. A GET that cannot
   * connect or is answered 5xx is tried again, up to {@link #GET_ATTEMPTS} times {@link
   * #RETRY_PAUSE} apart: the JobManager's REST endpoint refuses briefly while it fails over. Any
   * other answer than 200 throws at once.
   */
  public String text(String path) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(address + path)).timeout(REQUEST_TIMEOUT).GET().build();
    for (int attempt = 1; ; attempt++) {
      boolean last = attempt == GET_ATTEMPTS;
      try {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        int status = response.statusCode();
        if (status == 200) {
          return response.body();
        }
        if (status < 500 || last) {
          throw new StackException(
              "GET " + address + path + " answered " + status + ": " + response.body());
        }
      } catch (IOException e) {
        if (last) {
          throw new UncheckedIOException(
              "GET " + address + path + " failed " + GET_ATTEMPTS + " times", e);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StackException("interrupted during GET " + address + path, e);
      }
      pause(path);
    }
  }

  private void pause(String path) {
    try {
      Thread.sleep(RETRY_PAUSE.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("interrupted during GET " + address + path, e);
    }
  }

  private <T> T get(String path, Class<T> type) {
    String body = text(path);
    try {
      return parse(body, type);
    } catch (JsonProcessingException e) {
      throw new StackException("GET " + address + path + " answered what is not a " + type, e);
    }
  }

  /**
   * Reads an answer of the REST API, e.g. one a bench saved ({@link #text}), as this client reads
   * it.
   */
  public static <T> T parse(String body, Class<T> type) throws JsonProcessingException {
    return JSON.readValue(body, type);
  }

  /**
   * @param taskManagers registered TaskManagers
   * @param slotsTotal their task slots
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ClusterOverview(
      @JsonProperty("taskmanagers") int taskManagers,
      @JsonProperty("slots-total") int slotsTotal) {}

  /**
   * @param id the resource id ({@code taskmanager.resource-id})
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record TaskManager(String id) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record TaskManagers(List<TaskManager> taskmanagers) {}

  /**
   * @param id the job id
   * @param name the job name ({@code job.name})
   * @param state {@code RUNNING}, {@code FINISHED}, {@code RESTARTING}, ...
   * @param startTime when the job was submitted, epoch milliseconds
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record JobOverview(
      @JsonProperty("jid") String id,
      String name,
      String state,
      @JsonProperty("start-time") long startTime) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record JobsOverview(List<JobOverview> jobs) {}

  /**
   * @param state the job's status
   * @param timestamps epoch milliseconds of the job's last transition to each status it had
   * @param vertices the job's vertices (operator chains)
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record JobDetails(String state, Map<String, Long> timestamps, List<Vertex> vertices) {

    /** Epoch milliseconds of the job's last transition to {@code status}; 0 if it never had it. */
    public long lastTransitionTo(String status) {
      return timestamps == null ? 0 : timestamps.getOrDefault(status, 0L);
    }

    /**
     * Whether the job is {@code RUNNING} with every subtask of every vertex running (or already
     * finished, as a bounded source's may be).
     */
    public boolean allTasksRunning() {
      return "RUNNING".equals(state)
          && vertices.stream()
              .allMatch(
                  v ->
                      v.tasks().getOrDefault("RUNNING", 0) + v.tasks().getOrDefault("FINISHED", 0)
                          == v.parallelism());
    }
  }

  /**
   * @param id the vertex id, derived from its chain head's uid ({@link #vertexIdOfUid})
   * @param name the display name, for people only
   * @param parallelism its subtasks
   * @param tasks how many subtasks are in each execution state
   * @param metrics its subtasks' record counters, summed
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Vertex(
      String id, String name, int parallelism, Map<String, Integer> tasks, IoMetrics metrics) {}

  /**
   * @param readRecords records the vertex's subtasks received from upstream vertices
   * @param writeRecords records they sent downstream
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record IoMetrics(
      @JsonProperty("read-records") long readRecords,
      @JsonProperty("write-records") long writeRecords) {}

  /**
   * @param counts how many checkpoints completed, failed, were restored from, ...
   * @param summary statistics of the completed checkpoints, by measure ({@code end_to_end_duration}
   *     in ms, {@code persisted_data} in bytes, ...)
   * @param latest the latest completed checkpoint, if any
   * @param history the most recent checkpoints, newest first (Flink keeps a bounded number)
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record CheckpointStatistics(
      Counts counts, Map<String, Statistics> summary, Latest latest, List<Checkpoint> history) {

    /** The statistics of one measure, or none if Flink reported none. */
    public Optional<Statistics> of(String measure) {
      return summary == null ? Optional.empty() : Optional.ofNullable(summary.get(measure));
    }
  }

  /**
   * @param completed completed checkpoints, savepoints included
   * @param failed failed checkpoints
   * @param restored restores from a checkpoint or savepoint, at start or on failover
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Counts(long completed, long failed, long restored) {}

  /**
   * @param completed the latest completed checkpoint, {@code null} before the first
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Latest(Checkpoint completed) {}

  /**
   * One checkpoint's figures. With incremental RocksDB checkpoints the two sizes differ: {@code
   * stateSize} is the whole state the checkpoint consists of, {@code checkpointedSize} what this
   * checkpoint uploaded.
   *
   * @param status {@code COMPLETED}, {@code IN_PROGRESS} or {@code FAILED}
   * @param stateSize bytes of state the checkpoint refers to
   * @param checkpointedSize bytes this checkpoint wrote
   * @param endToEndDuration milliseconds from trigger to the last acknowledgement
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Checkpoint(
      long id,
      String status,
      @JsonProperty("is_savepoint") boolean savepoint,
      @JsonProperty("state_size") long stateSize,
      @JsonProperty("checkpointed_size") long checkpointedSize,
      @JsonProperty("end_to_end_duration") long endToEndDuration) {}

  /** One measure's minimum, maximum, average and percentiles over the completed checkpoints. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Statistics(double min, double max, double avg, double p50, double p99) {}

  /**
   * @param subtasks the vertex's subtasks, by index
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record VertexDetails(List<Subtask> subtasks) {}

  /**
   * @param index the subtask's index
   * @param status its current attempt's execution state ({@code DEPLOYING}, {@code RUNNING}, ...)
   * @param attempt the attempt number, raised by every restart of the subtask
   * @param metrics the attempt's I/O counters ({@code read-records}, ...), as the JobManager's
   *     metric fetcher last fetched them ({@code metrics.fetcher.update-interval})
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Subtask(
      @JsonProperty("subtask") int index, String status, int attempt, Map<String, Object> metrics) {

    /** The records the current attempt has read; 0 before the metric fetcher has any. */
    public long readRecords() {
      Object value = metrics == null ? null : metrics.get("read-records");
      return value instanceof Number n ? n.longValue() : 0;
    }
  }

  /**
   * One failure of the job, as its exception history holds it.
   *
   * @param exceptionName the root cause's class
   * @param timestamp when the JobManager handled the failure, epoch milliseconds
   * @param taskName the failed task, or null for a global failure
   * @param stacktrace the failure's stack trace, its message on the first line
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Failure(String exceptionName, long timestamp, String taskName, String stacktrace) {

    /** The failure's first line: its class and message. */
    public String summary() {
      String text = stacktrace == null || stacktrace.isBlank() ? exceptionName : stacktrace;
      int end = text.indexOf('\n');
      return (end < 0 ? text : text.substring(0, end)).strip();
    }
  }

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record SubtaskTimes(List<SubtaskTime> subtasks) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record SubtaskTime(Map<String, Long> timestamps) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record Exceptions(@JsonProperty("exceptionHistory") History history) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record History(List<Failure> entries) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record VertexTaskManagers(List<VertexTaskManager> taskmanagers) {}

  @JsonIgnoreProperties(ignoreUnknown = true)
  private record VertexTaskManager(@JsonProperty("taskmanager-id") String taskManagerId) {}

  /**
   * @param id the metric's id within its vertex, {@code <subtask>.<scope>.<name>}
   * @param value its value as text; absent in a listing
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Metric(String id, String value) {}

  /**
   * @param id the metric, {@code <subtask>.currentInputWatermark}
   * @param value the watermark, epoch milliseconds; {@link Long#MIN_VALUE} before the first one
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Watermark(String id, long value) {}
}
