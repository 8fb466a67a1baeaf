package dev.tally.bench;

import dev.tally.stack.FlinkRestClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Follows a bounded leg's job: every completed checkpoint's sizes and duration, as its REST API's
 * {@code /jobs/:id/checkpoints} reports them, and the records its source vertex has sent on; and
 * stops the job when it runs longer than a limit, so a leg that would take hours ends with the
 * figures of what it did.
 *
 * <p>Given the source's committed records (the sum of the offsets its consumer group committed,
 * which the Kafka source commits when a checkpoint completes), it also notes how many records each
 * checkpoint's source state had passed: on a workload of unique, valid transactions, the ids the
 * checkpoint's dedupe state holds. A count is noted only when the offsets were read at least a
 * second after the checkpoint was seen completed and they moved since the previous count (so its
 * commit has landed), and no later checkpoint had completed by then (so they are that
 * checkpoint's); others stay unknown.
 */
final class CheckpointWatch implements JobWatch {

  /** How long after a checkpoint is seen completed its offsets are taken to be committed. */
  private static final long COMMIT_GRACE_NANOS = 1_000_000_000L;

  private final Duration limit;
  private final LongSupplier committedRecords;
  private final TreeMap<Long, FlinkRestClient.Checkpoint> completed = new TreeMap<>();
  private final TreeMap<Long, Long> recordsAt = new TreeMap<>();
  private final TreeMap<Long, Long> firstSeenNanos = new TreeMap<>();
  private volatile long sourceRecords;
  private volatile boolean stopped;

  /**
   * @param limit how long the job may run before it is stopped
   */
  CheckpointWatch(Duration limit) {
    this(limit, () -> -1);
  }

  /**
   * @param limit how long the job may run before it is stopped
   * @param committedRecords the records the job's source has committed, -1 when unknown
   */
  CheckpointWatch(Duration limit, LongSupplier committedRecords) {
    this.limit = limit;
    this.committedRecords = committedRecords;
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
          countRecords(rest, job.get().id());
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
        firstSeenNanos.putIfAbsent(c.id(), System.nanoTime());
      }
    }
  }

  /**
   * Notes the committed records against the latest completed checkpoint, if they are its: read
   * after it completed, and no later one completed before they were read.
   */
  private void countRecords(FlinkRestClient rest, String jobId) {
    Long latest;
    synchronized (this) {
      latest = completed.isEmpty() ? null : completed.lastKey();
      if (latest == null
          || recordsAt.containsKey(latest)
          || System.nanoTime() - firstSeenNanos.get(latest) < COMMIT_GRACE_NANOS) {
        return;
      }
    }
    long records = committedRecords.getAsLong();
    record(rest.checkpoints(jobId));
    synchronized (this) {
      Map.Entry<Long, Long> previous = recordsAt.lastEntry();
      if (records >= 0
          && completed.lastKey().equals(latest)
          && (previous == null || records > previous.getValue())) {
        recordsAt.put(latest, records);
      }
    }
  }

  /** Records the source had committed at each checkpoint whose count is known, by id. */
  synchronized Map<Long, Long> recordsAtCheckpoints() {
    return new TreeMap<>(recordsAt);
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
      long meanDurationMillis,
      long maxStateBytes,
      long maxCheckpointedBytes) {

    static Figures of(List<FlinkRestClient.Checkpoint> checkpoints) {
      if (checkpoints.isEmpty()) {
        return new Figures(0, -1, -1, -1, -1, -1, -1, -1);
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
                  .orElse(0)),
          checkpoints.stream().mapToLong(FlinkRestClient.Checkpoint::stateSize).max().orElse(0),
          checkpoints.stream()
              .mapToLong(FlinkRestClient.Checkpoint::checkpointedSize)
              .max()
              .orElse(0));
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
