package dev.tally.runtime.topology;

import dev.tally.domain.spending.SeenIds;
import dev.tally.domain.spending.SeenTransaction;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourcedTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.function.ThrowingConsumer;

/**
 * Runs {@link SpendingAggregator} with its open windows and dedupe memory written back ({@link
 * WriteBackState}), migrates the dedupe state of older releases on restore, and closes every open
 * window when the input ends.
 *
 * <p>Write-back is safe here because this operator is where every path to the keyed state meets:
 * pending values are written in {@link #snapshotState}, which runs right before the keyed state of
 * any checkpoint or savepoint is taken; before {@link #endInput} iterates the keys; and before an
 * element or a timer when the bound is reached. Timers and elements read through the aggregator's
 * pending values, so nothing in between can see stale state.
 *
 * <p>With anomalies on, between checkpoints, after each element and timer, some pending values are
 * written ahead ({@link WriteBackState#writeBackAhead}), paced by the processing time to the next
 * checkpoint as the last interval's length predicts it: the barrier then finds at most {@link
 * WriteBackState#PENDING_AT_BARRIER} users pending per state. Written at the barrier, every user
 * changed in the interval held the task thread for seconds at 100,000 users, in which no event was
 * processed and no alert sent (docs/benchmarks.md "Anomaly latency"). Written ahead, a value is
 * still written once per interval unless changed again after; a savepoint or a checkpoint sooner
 * than predicted writes what is left at its barrier, as before. Only with anomalies on: a spending
 * row becomes visible with the checkpoint's commit, after the barrier's write-back whenever it is
 * written, while writing ahead cost 15 to 24 % of the spending job's events/s on the throughput
 * bench (a busy user written ahead is written again at the barrier; docs/benchmarks.md "Anomaly
 * latency").
 *
 * <p>Why not rely on the final watermark alone: a bounded job (a backfill) that fails over after
 * its sources have read everything restores them as finished, and the aggregator then does not
 * always see {@code Long.MAX_VALUE} as its watermark again. The end of input itself is always
 * delivered: {@link #endInput} runs when every upstream subtask has ended its data with a drain
 * (the end of a bounded source, or {@code stop --drain}), never for a stop-with-savepoint without
 * drain. It emits what the final watermark would have, and finds nothing when that watermark did
 * arrive.
 */
final class SpendingAggregatorOperator
    extends KeyedProcessOperator<String, SourcedTransaction, WindowedSpending>
    implements BoundedOneInput {

  private static final long serialVersionUID = 1L;

  private final SpendingAggregator aggregator;
  private final int writeBackUsers;
  private transient boolean restored;

  /** Processing time of the last snapshot, negative before the first. */
  private transient long lastSnapshotAt;

  /** Processing time between the last two snapshots, 0 until there were two. */
  private transient long interval;

  /**
   * @param writeBackUsers how many users' changed open windows may wait on the heap for the next
   *     checkpoint; 0 writes every change at once
   */
  SpendingAggregatorOperator(SpendingAggregator aggregator, int writeBackUsers) {
    super(aggregator);
    if (writeBackUsers < 0) {
      throw new IllegalArgumentException("writeBackUsers must not be negative: " + writeBackUsers);
    }
    this.aggregator = aggregator;
    this.writeBackUsers = writeBackUsers;
  }

  /**
   * Timers may be split across mailbox turns ({@code checkpoints.interruptible-timers}): a window
   * end fires a timer per user, and when the output backs up, a checkpoint barrier would otherwise
   * wait until the last of them has emitted its row. Safe here: a timer reads and writes only its
   * own key's state, through the same write-back as an element, and every verdict depends on the
   * watermark, which Flink has already advanced before the first timer fires.
   */
  @Override
  public boolean useSplittableTimers() {
    return true;
  }

  /**
   * Refuses restored anomaly state in the retired layout, before anything is processed: this build
   * would not see those baselines. Asked of the keyed backend by state name, which restored state
   * keeps whether or not this build registers it. Notes a restore, so that {@link #open} migrates
   * the dedupe state of older releases.
   */
  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    if (context.isRestored() && aggregator.detectsAnomalies()) {
      try (Stream<String> keys =
          this.<String>getKeyedStateBackend()
              .getKeys(AnomalyWatch.RETIRED_HEADS, VoidNamespace.INSTANCE)) {
        if (keys.findAny().isPresent()) {
          throw new SuppressRestartsException(
              new IllegalStateException(AnomalyWatch.refuseRetiredLayout()));
        }
      }
    }
    restored = context.isRestored();
  }

  @Override
  public void open() throws Exception {
    // RocksDB serializes on every update and deserializes on every read, so a written value may
    // stay on the heap; the heap backend stores the object itself (WriteBackState).
    aggregator.writeBackUpTo(writeBackUsers, getKeyedStateBackend().isSafeToReuseKVState());
    super.open();
    lastSnapshotAt = -1;
    interval = 0;
    AggregationMetrics.writeBackPending(getMetricGroup(), aggregator::pendingUsers);
    if (restored) {
      migrateOlderDedupe();
    }
  }

  /**
   * Moves the dedupe entries of state written by older releases into the per-user hours, once,
   * before the first record: one packed value per user ({@link SeenTransactions#PACKED_STATE}) and
   * one map entry per id ({@link SeenTransactions#LEGACY_STATE}). The cost is one pass over that
   * state at the first restore. Registering an old state is what restores it; it stays registered,
   * and empty, in later snapshots.
   */
  private void migrateOlderDedupe() throws Exception {
    ValueState<SeenIds> packed =
        getKeyedStateBackend()
            .getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, SeenTransactions.PACKED);
    forEachUserOf(
        SeenTransactions.PACKED_STATE, user -> aggregator.migratePackedDedupe(user, packed));
    MapState<String, SeenTransaction> legacy =
        getKeyedStateBackend()
            .getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, SeenTransactions.LEGACY);
    forEachUserOf(
        SeenTransactions.LEGACY_STATE, user -> aggregator.migrateLegacyDedupe(user, legacy));
    writeBack();
  }

  /** Runs {@code migrate} for every user with state {@code stateName}, as the current key. */
  private void forEachUserOf(String stateName, ThrowingConsumer<String, Exception> migrate)
      throws Exception {
    // Keys first, then state changes: a backend's key iteration must not see its own updates.
    List<String> users = new ArrayList<>();
    try (Stream<String> keys =
        this.<String>getKeyedStateBackend().getKeys(stateName, VoidNamespace.INSTANCE)) {
      keys.forEach(users::add);
    }
    for (String user : users) {
      setCurrentKey(user);
      migrate.accept(user);
      if (aggregator.writeBackFull()) {
        writeBack();
      }
    }
  }

  @Override
  public void processElement(StreamRecord<SourcedTransaction> element) throws Exception {
    writeBackIfFull();
    super.processElement(element);
    writeBackAhead();
  }

  // Timers are bounded too: a window end fires the timers of every user with a window in it, all
  // under one watermark, and each changes its user's value.
  @Override
  public void onEventTime(InternalTimer<String, VoidNamespace> timer) throws Exception {
    writeBackIfFull();
    super.onEventTime(timer);
    writeBackAhead();
  }

  /**
   * Every watermark reaches the checkpointed floor, not only those an element or a timer happens to
   * see: a subtask whose users are idle must still restore the event time it had passed, or a final
   * window of one of them would reopen after a failover.
   */
  @Override
  public void processWatermark(Watermark mark) throws Exception {
    aggregator.observeWatermark(mark.getTimestamp());
    super.processWatermark(mark);
  }

  @Override
  public void onProcessingTime(InternalTimer<String, VoidNamespace> timer) throws Exception {
    writeBackIfFull();
    super.onProcessingTime(timer);
    writeBackAhead();
  }

  /**
   * Runs right before the keyed state backend takes its part of a checkpoint or savepoint, in the
   * task thread: what it snapshots then includes every pending change.
   */
  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    writeBack();
    aggregator.markInterval();
    long now = getProcessingTimeService().getCurrentProcessingTime();
    if (lastSnapshotAt >= 0 && now > lastSnapshotAt) {
      interval = now - lastSnapshotAt;
    }
    lastSnapshotAt = now;
    super.snapshotState(context);
  }

  /**
   * Writes some pending values ahead of the next barrier (see the class comment); nothing before
   * the interval is known (the first interval after a start or restore writes at its barrier).
   */
  private void writeBackAhead() throws Exception {
    if (interval <= 0 || !aggregator.watchesAnomalies()) {
      return;
    }
    long toCome = lastSnapshotAt + interval - getProcessingTimeService().getCurrentProcessingTime();
    double remaining = toCome <= 0 ? 0 : Math.min(1.0, (double) toCome / interval);
    Object key = getCurrentKey();
    if (aggregator.writeBackAhead(remaining, this::setCurrentKey) && key != null) {
      setCurrentKey(key);
    }
  }

  private void writeBackIfFull() throws Exception {
    if (aggregator.writeBackFull()) {
      writeBack();
    }
  }

  /** Writes the pending open windows, then restores the key the runtime had set. */
  private void writeBack() throws Exception {
    Object key = getCurrentKey();
    aggregator.writeBack(this::setCurrentKey);
    if (key != null) {
      setCurrentKey(key);
    }
  }

  @Override
  public void endInput() throws Exception {
    writeBack();
    // Keys first, then state changes: a backend's key iteration must not see its own updates.
    List<String> users = new ArrayList<>();
    try (Stream<String> keys =
        this.<String>getKeyedStateBackend()
            .getKeys(SpendingAggregator.OPEN_WINDOWS_STATE, VoidNamespace.INSTANCE)) {
      keys.forEach(users::add);
    }
    TimestampedCollector<WindowedSpending> out = new TimestampedCollector<>(output);
    out.eraseTimestamp();
    for (String user : users) {
      setCurrentKey(user);
      aggregator.closeAllWindows(user, out);
    }
    writeBack();
    if (aggregator.detectsAnomalies()) {
      judgeAllWaiting();
    }
  }

  /** What the final watermark would judge: every transaction waiting for its anomaly baseline. */
  private void judgeAllWaiting() throws Exception {
    List<String> users = new ArrayList<>();
    try (Stream<String> keys =
        this.<String>getKeyedStateBackend().getKeys(AnomalyWatch.STATE, VoidNamespace.INSTANCE)) {
      keys.forEach(users::add);
    }
    for (String user : users) {
      setCurrentKey(user);
      aggregator.judgeAllWaiting(
          user,
          anomaly -> output.collect(SpendingAggregator.ANOMALIES, new StreamRecord<>(anomaly)));
      writeBackIfFull();
    }
    writeBack();
  }
}
