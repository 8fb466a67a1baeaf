package dev.tally.bench;

import dev.tally.stack.FlinkRestClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whether a backpressure run was what issue 20's acceptance line measures: the sink at no more than
 * a third of its input for the whole fault, because the writers were slow, not because the job was
 * short of CPU upstream. Judged from the work of the fault period alone (two snapshots of Flink's
 * per-subtask counters, at the start and the end of the traffic):
 *
 * <ul>
 *   <li>the rows the spending writers took in, against the rows the traffic's windows hold: at most
 *       {@link #MAX_SINK_SHARE};
 *   <li>the writers' time waiting for input: at most {@link #MAX_WRITERS_IDLE} (they were the slow
 *       part: busy, in their own work or in the store's requests);
 *   <li>the aggregators' time waiting for an output buffer: at least {@link
 *       #MIN_AGGREGATORS_BACKPRESSURED} (the slowness reached back across the exchange);
 *   <li>the fault lasting at least {@link #MIN_SECONDS};
 *   <li>the writers' counters accounting for at least {@link #MIN_ACCOUNTED} of the fault's wall
 *       time on each subtask: the REST API serves them as its metric fetcher last fetched them, so
 *       two snapshots of one stale fetch differ by nothing, and every share above would pass or
 *       fail on zeros.
 * </ul>
 *
 * @param sinkRows rows the writers took in during the fault
 * @param demandRows rows the traffic of the fault produces (its windows' distinct keys)
 * @param writers the writers' work during the fault
 * @param aggregators the aggregators' work during the fault
 * @param seconds how long the fault lasted
 */
record SustainedBackpressure(
    long sinkRows, long demandRows, Work writers, Work aggregators, long seconds) {

  static final double MAX_SINK_SHARE = 1.0 / 3;
  static final double MAX_WRITERS_IDLE = 0.20;
  static final double MIN_AGGREGATORS_BACKPRESSURED = 0.50;
  static final long MIN_SECONDS = 180;
  static final double MIN_ACCOUNTED = 0.90;

  /** The rows reaching the writers as a share of the rows the traffic produces. */
  double sinkShare() {
    return demandRows <= 0 ? 0 : (double) sinkRows / demandRows;
  }

  /** Each condition that failed, with its figure and bound; empty when the run qualifies. */
  List<String> shortfalls() {
    List<String> missed = new ArrayList<>();
    if (sinkShare() > MAX_SINK_SHARE) {
      missed.add(
          String.format(
              Locale.ROOT, "sink at %.2f of its input (at most 1/3)", Math.min(sinkShare(), 9.99)));
    }
    if (writers.idleShare() > MAX_WRITERS_IDLE) {
      missed.add(percent("writers idle", writers.idleShare(), "at most", MAX_WRITERS_IDLE));
    }
    if (aggregators.backpressuredShare() < MIN_AGGREGATORS_BACKPRESSURED) {
      missed.add(
          percent(
              "aggregators backpressured",
              aggregators.backpressuredShare(),
              "at least",
              MIN_AGGREGATORS_BACKPRESSURED));
    }
    if (seconds < MIN_SECONDS) {
      missed.add("fault of " + seconds + " s (at least " + MIN_SECONDS + " s)");
    }
    double accounted = writers.secondsPerSubtask();
    if (accounted < MIN_ACCOUNTED * seconds) {
      missed.add(
          String.format(
              Locale.ROOT,
              "writers' counters account for %.1f s of the fault's %d s per subtask (stale"
                  + " metrics: nothing measured)",
              accounted,
              seconds));
    }
    return missed;
  }

  boolean qualifies() {
    return shortfalls().isEmpty();
  }

  /** "yes" or "no: " and what fell short, for the report's table. */
  String verdict() {
    List<String> missed = shortfalls();
    return missed.isEmpty() ? "yes" : "no: " + String.join("; ", missed);
  }

  /** The figures the verdict rests on, for the report's table. */
  String figures() {
    return String.format(
        Locale.ROOT,
        "sink %.2f of input; writers busy %d %%, idle %d %%; aggregators backpressured %d %%",
        sinkShare(),
        Math.round(100 * writers.busyShare()),
        Math.round(100 * writers.idleShare()),
        Math.round(100 * aggregators.backpressuredShare()));
  }

  private static String percent(String what, double share, String bound, double limit) {
    return String.format(
        Locale.ROOT,
        "%s %d %% (%s %d %%)",
        what,
        Math.round(100 * share),
        bound,
        Math.round(100 * limit));
  }

  /**
   * Where the time of a vertex's subtasks went, summed over them: Flink's accumulated busy, idle
   * and backpressured milliseconds of each subtask, and the records they read.
   *
   * @param subtasks how many subtasks the sums are over
   */
  record Work(
      int subtasks, double busyMs, double idleMs, double backpressuredMs, long readRecords) {

    /** The sums over the subtasks of a vertex as the REST API reports them. */
    static Work of(FlinkRestClient.VertexDetails vertex) {
      double busy = 0;
      double idle = 0;
      double backpressured = 0;
      long read = 0;
      for (FlinkRestClient.Subtask subtask : vertex.subtasks()) {
        busy += metric(subtask, "accumulated-busy-time");
        idle += metric(subtask, "accumulated-idle-time");
        backpressured += metric(subtask, "accumulated-backpressured-time");
        read += subtask.readRecords();
      }
      return new Work(vertex.subtasks().size(), busy, idle, backpressured, read);
    }

    private static double metric(FlinkRestClient.Subtask subtask, String name) {
      Object value = subtask.metrics() == null ? null : subtask.metrics().get(name);
      // Flink reports busy time as NaN while it cannot measure it.
      return value instanceof Number n && !Double.isNaN(n.doubleValue()) ? n.doubleValue() : 0;
    }

    /** The work done since {@code earlier}, a snapshot of the same attempts. */
    Work since(Work earlier) {
      return new Work(
          subtasks,
          busyMs - earlier.busyMs,
          idleMs - earlier.idleMs,
          backpressuredMs - earlier.backpressuredMs,
          readRecords - earlier.readRecords);
    }

    private double total() {
      return busyMs + idleMs + backpressuredMs;
    }

    /** The time the counters account for, per subtask, in seconds. */
    double secondsPerSubtask() {
      return subtasks <= 0 ? 0 : total() / subtasks / 1000;
    }

    double busyShare() {
      return total() <= 0 ? 0 : busyMs / total();
    }

    double idleShare() {
      return total() <= 0 ? 0 : idleMs / total();
    }

    double backpressuredShare() {
      return total() <= 0 ? 0 : backpressuredMs / total();
    }
  }
}
