package dev.tally.bench;

import dev.tally.stack.FlinkRestClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Follows a bounded leg's job: every completed checkpoint's sizes and duration, as its REST API's
 * {@code /jobs/:id/checkpoints} reports them, and the records its source vertex has sent on; and
 * stops the job when it runs longer than a limit, so a leg that would take hours ends with the
 * figures of what it did.
 */
final class CheckpointWatch implements JobWatch {

  private final Duration limit;
  private final TreeMap<Long, FlinkRestClient.Checkpoint> completed = new TreeMap<>();
  private volatile long sourceRecords;
  private volatile boolean stopped;

  /**
   * @param limit how long the job may run before it is stopped
   */
  CheckpointWatch(Duration limit) {
    this.limit = limit;
  }

  @Override
  public void follow(FlinkRestClient rest, MeasuredProcess process) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (process.isAlive()) {
      try {
        Thread.sleep(1_000);
        if (System.nanoTime() > deadline && !stopped) {
          stopped = true;
          Bench.say("Time limit of " + limit.toSeconds() + " s reached: stopping the job");
          process.stop(Duration.ofSeconds(30));
        }
        Optional<FlinkRestClient.JobOverview> job = rest.onlyJob();
        if (job.isPresent()) {
          record(rest.checkpoints(job.get().id()));
          List<FlinkRestClient.Vertex> vertices = rest.job(job.get().id()).vertices();
          if (!vertices.isEmpty() && vertices.get(0).metrics() != null) {
            sourceRecords = vertices.get(0).metrics().writeRecords();
          }
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

  private synchronized void record(FlinkRestClient.CheckpointStatistics statistics) {
    if (statistics.history() == null) {
      return;
    }
    for (FlinkRestClient.Checkpoint c : statistics.history()) {
      if ("COMPLETED".equals(c.status()) && !c.savepoint()) {
        completed.put(c.id(), c);
      }
    }
  }

  /** Whether the limit stopped the job. */
  boolean stopped() {
    return stopped;
  }

  /** Records the job's source vertex sent on, at the last look. */
  long sourceRecords() {
    return sourceRecords;
  }

  /** The completed checkpoints seen, oldest first. */
  synchronized List<FlinkRestClient.Checkpoint> checkpoints() {
    return new ArrayList<>(completed.values());
  }

  /** The checkpoint figures of a leg, for its report. */
  record Figures(
      int checkpoints,
      long lastStateBytes,
      long lastCheckpointedBytes,
      long meanCheckpointedBytes,
      long maxDurationMillis,
      long meanDurationMillis) {

    static Figures of(List<FlinkRestClient.Checkpoint> checkpoints) {
      if (checkpoints.isEmpty()) {
        return new Figures(0, -1, -1, -1, -1, -1);
      }
      FlinkRestClient.Checkpoint last = checkpoints.get(checkpoints.size() - 1);
      return new Figures(
          checkpoints.size(),
          last.stateSize(),
          last.checkpointedSize(),
          Math.round(
              checkpoints.stream()
                  .mapToLong(FlinkRestClient.Checkpoint::checkpointedSize)
                  .average()
                  .orElse(0)),
          checkpoints.stream()
              .mapToLong(FlinkRestClient.Checkpoint::endToEndDuration)
              .max()
              .orElse(0),
          Math.round(
              checkpoints.stream()
                  .mapToLong(FlinkRestClient.Checkpoint::endToEndDuration)
                  .average()
                  .orElse(0)));
    }

    /** One line per checkpoint: uploaded bytes against the whole state, and duration. */
    static String lines(List<FlinkRestClient.Checkpoint> checkpoints) {
      StringBuilder out = new StringBuilder();
      for (FlinkRestClient.Checkpoint c : checkpoints) {
        out.append(
            String.format(
                Locale.ROOT,
                "  - checkpoint %d: uploaded %,d of %,d bytes of state (%.0f %%), %,d ms%n",
                c.id(),
                c.checkpointedSize(),
                c.stateSize(),
                c.stateSize() > 0 ? 100.0 * c.checkpointedSize() / c.stateSize() : 0,
                c.endToEndDuration()));
      }
      return out.toString();
    }
  }
}
