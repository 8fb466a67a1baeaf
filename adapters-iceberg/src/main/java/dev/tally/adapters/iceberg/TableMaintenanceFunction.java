package dev.tally.adapters.iceberg;

import dev.tally.domain.spending.WindowedSpending;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.util.Collector;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.TableLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tally's table maintenance inside the job: one instance (parallelism 1) that, when checkpoints
 * complete, compacts the table ({@link PartitionCompaction}) and expires snapshots ({@link
 * SnapshotExpiry}).
 *
 * <p>It receives no records (its input is filtered empty; it only needs to be part of the job to
 * hear about checkpoints): the sink commits when a checkpoint completes, so completed checkpoints
 * count commits. Iceberg I/O runs on a thread of its own, one run at a time, so that a long
 * compaction never delays a checkpoint barrier; a due run is postponed while another one is in
 * flight. It keeps no Flink state (nothing of it needs to survive a restore: a run interrupted by a
 * failure either committed or left only unreferenced files) and exchanges no records, so it needs
 * no serializer at all. A failed run is logged and counted, never fails the job: ingestion matters
 * more, and the next run plans again from the table as it is.
 *
 * <p>Closing tells an end of input from a cancel (a failover, a cancelled job) by whether {@link
 * #finish()} came first, as {@link Operator} calls it where Flink finishes the operator: after the
 * end of input (a bounded job) closing waits for the run in flight, e.g. the last compaction; on a
 * cancel it interrupts the run and waits at most {@link #CANCEL_WAIT_MILLIS}, because the restart
 * of the whole job waits for this task to be cancelled (a compaction took 9.3 s to finish once,
 * docs/benchmarks.md, Recovery). A cancelled run commits nothing unless its commit was already in
 * flight: the run checks for the cancel while planning, between rows and before each commit
 * attempt, by this task's own flag as well as the thread's interrupt status (a library on the way
 * may clear that), and deletes the files it wrote when it stops there. A commit in flight (a REST
 * call does not stop for an interrupt) is one atomic Iceberg commit: it happened or not, and at
 * worst leaves files no snapshot references, which no reader sees and no run of this class removes
 * (docs/behaviour.md, orphan files).
 */
final class TableMaintenanceFunction extends ProcessFunction<WindowedSpending, Void>
    implements CheckpointListener {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(TableMaintenanceFunction.class);

  /** How long closing waits for a run in flight, e.g. the last compaction of a bounded job. */
  private static final long CLOSE_WAIT_MINUTES = 5;

  /** How long closing on a cancel waits for an interrupted run to stop. */
  static final long CANCEL_WAIT_MILLIS = 500;

  private final TableLoader tableLoader;
  private final MaintenanceConfig options;

  private transient ExecutorService worker;
  private transient Future<?> inFlight;
  private transient Table table;
  private transient String jobId;
  private transient PartitionCompaction compaction;
  private transient SnapshotExpiry expiry;
  private transient long checkpointsSinceCompaction;
  private transient long checkpointsSinceExpiry;
  private transient long lastCompactionNanos;
  private transient boolean finished;

  /** Set by closing on a cancel, before the run is interrupted. */
  private transient volatile boolean cancelled;

  private transient Counter compactions;
  private transient Counter expiries;
  private transient Counter failures;
  private transient Counter runs;

  /** Written by the worker thread, read by metric reporters. */
  private transient volatile long lastRunMillis;

  TableMaintenanceFunction(TableLoader tableLoader, MaintenanceConfig options) {
    this.tableLoader = tableLoader;
    this.options = options;
  }

  @Override
  public void open(OpenContext openContext) throws Exception {
    tableLoader.open();
    table = tableLoader.loadTable();
    jobId = getRuntimeContext().getJobInfo().getJobId().toString();
    compaction =
        new PartitionCompaction(options.dataFileThreshold(), options.deleteFileThreshold());
    expiry = new SnapshotExpiry(options.maxSnapshotAge(), options.retainLastSnapshots());
    lastCompactionNanos = System.nanoTime();
    finished = false;
    cancelled = false;
    worker =
        Executors.newSingleThreadExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "tally-iceberg-maintenance");
              thread.setDaemon(true);
              return thread;
            });
    var metrics = getRuntimeContext().getMetricGroup();
    compactions = metrics.counter("tally.icebergCompactions");
    expiries = metrics.counter("tally.icebergSnapshotsExpired");
    failures = metrics.counter("tally.icebergMaintenanceFailures");
    runs = metrics.counter("tally.icebergMaintenanceRuns");
    lastRunMillis = -1;
    metrics.gauge("tally.icebergMaintenanceLastRunMillis", (Gauge<Long>) () -> lastRunMillis);
  }

  @Override
  public void processElement(WindowedSpending value, Context ctx, Collector<Void> out) {
    // The input is empty by construction; see the class comment.
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    checkpointsSinceCompaction++;
    checkpointsSinceExpiry++;
    if (inFlight != null && !inFlight.isDone()) {
      return;
    }
    boolean compact =
        checkpointsSinceCompaction >= options.compactEveryCheckpoints()
            || System.nanoTime() - lastCompactionNanos >= options.compactInterval().toNanos();
    boolean expire = checkpointsSinceExpiry >= options.expireEveryCheckpoints();
    if (!compact && !expire) {
      return;
    }
    if (compact) {
      checkpointsSinceCompaction = 0;
      lastCompactionNanos = System.nanoTime();
    }
    if (expire) {
      checkpointsSinceExpiry = 0;
    }
    inFlight = worker.submit(() -> maintain(compact, expire, checkpointId));
  }

  /** On the worker thread: the only thread that touches {@link #table} after {@link #open}. */
  private void maintain(boolean compact, boolean expire, long checkpointId) {
    long started = System.nanoTime();
    try {
      if (compact) {
        PartitionCompaction.Result result = compaction.run(table, () -> cancelled);
        if (result.partitions() > 0 || result.deleteFilesRemoved() > 0) {
          compactions.inc();
        }
      }
      if (expire) {
        expiries.inc(expiry.run(table, jobId, () -> cancelled));
      }
    } catch (Exception e) {
      if (cancelled || Thread.currentThread().isInterrupted()) {
        LOG.info(
            "Maintenance of {} after checkpoint {} stopped: the task is cancelled",
            table.name(),
            checkpointId);
        return;
      }
      failures.inc();
      LOG.warn(
          "Maintenance of {} after checkpoint {} failed; the next run plans again",
          table.name(),
          checkpointId,
          e);
    } finally {
      lastRunMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      runs.inc();
    }
  }

  /**
   * The end of input: the job finishes rather than being cancelled, so {@link #close()} lets the
   * run in flight end.
   */
  void finish() {
    finished = true;
  }

  @Override
  public void close() throws Exception {
    try {
      if (worker != null) {
        if (finished) {
          worker.shutdown();
          if (!worker.awaitTermination(CLOSE_WAIT_MINUTES, TimeUnit.MINUTES)) {
            LOG.warn("Interrupting a maintenance run of {} that did not finish", table.name());
            worker.shutdownNow();
          }
        } else {
          // Cancelled: the restart of the job waits for this task. The run's files are orphans at
          // worst, never wrong data (see the class comment).
          cancelled = true;
          worker.shutdownNow();
          if (!worker.awaitTermination(CANCEL_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
            LOG.warn(
                "A maintenance run of {} did not stop within {} ms of its interruption; closing"
                    + " the table under it",
                table.name(),
                CANCEL_WAIT_MILLIS);
          }
        }
      }
    } catch (InterruptedException e) {
      worker.shutdownNow(); // cancelled: the run's files are orphans at worst, never wrong data
      Thread.currentThread().interrupt();
    } finally {
      tableLoader.close();
    }
  }

  /**
   * Flink's operator for this function, telling it about the end of input ({@link #finish()}),
   * which Flink calls on an operator, never on a function; on a cancel Flink closes the operator
   * without finishing it.
   */
  static final class Operator extends ProcessOperator<WindowedSpending, Void> {
    private static final long serialVersionUID = 1L;

    Operator(TableMaintenanceFunction function) {
      super(function);
    }

    @Override
    public void finish() throws Exception {
      ((TableMaintenanceFunction) userFunction).finish();
      super.finish();
    }
  }
}
