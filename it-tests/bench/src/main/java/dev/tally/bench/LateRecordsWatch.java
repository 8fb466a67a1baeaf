package dev.tally.bench;

import dev.tally.stack.FlinkRestClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Follows a SQL leg's job: the records its operators dropped as late, which Flink SQL's window
 * operators do silently, counted by each operator's {@code numLateRecordsDropped} and summed over
 * its subtasks, as the job's REST API reports them while it runs (a bounded job's figures go with
 * its MiniCluster: the last look, at most half a second before the end, is what is reported).
 */
final class LateRecordsWatch implements JobWatch {

  private static final String METRIC = "numLateRecordsDropped";
  private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]*" + METRIC + ")\"");
  private static final Pattern SUM =
      Pattern.compile("\"id\"\\s*:\\s*\"([^\"]*)\"[^}]*\"sum\"\\s*:\\s*([0-9.Ee+-]+)");

  // operator's metric id → records dropped, at the last look
  private final Map<String, Long> dropped = new TreeMap<>();

  @Override
  public void follow(FlinkRestClient rest, MeasuredProcess process) {
    while (process.isAlive()) {
      try {
        Thread.sleep(500);
        Optional<FlinkRestClient.JobOverview> job = rest.onlyJob();
        if (job.isPresent()) {
          look(rest, job.get().id());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        // Not answering yet while the job initializes, gone while its JVM shuts down: look
        // again until the JVM has exited.
      }
    }
  }

  private void look(FlinkRestClient rest, String jobId) {
    for (FlinkRestClient.Vertex vertex : rest.job(jobId).vertices()) {
      String path = "/jobs/" + jobId + "/vertices/" + vertex.id() + "/subtasks/metrics";
      List<String> ids = new ArrayList<>();
      Matcher id = ID.matcher(rest.text(path));
      while (id.find()) {
        ids.add(id.group(1));
      }
      if (ids.isEmpty()) {
        continue;
      }
      Matcher sum = SUM.matcher(rest.text(path + "?agg=sum&get=" + String.join(",", ids)));
      while (sum.find()) {
        synchronized (this) {
          dropped.put(sum.group(1), (long) Double.parseDouble(sum.group(2)));
        }
      }
    }
  }

  /** Records dropped as late by every operator, at the last look. */
  synchronized long total() {
    return dropped.values().stream().mapToLong(Long::longValue).sum();
  }

  /** "N records dropped as late (operator: n, ...)", or that no operator counts them. */
  synchronized String describe() {
    if (dropped.isEmpty()) {
      return "no operator reported " + METRIC;
    }
    return String.format(
        java.util.Locale.ROOT, "%,d records dropped as late (%s)", total(), dropped);
  }
}
