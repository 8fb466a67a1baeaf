package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.Anomaly;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.spending.Firing;
import dev.tally.domain.spending.OpenWindow;
import dev.tally.domain.spending.SeenHours;
import dev.tally.domain.spending.SeenIds;
import dev.tally.domain.spending.SeenTransaction;
import dev.tally.domain.spending.StateSettings;
import dev.tally.domain.spending.UserLedger;
import dev.tally.domain.spending.Verdict;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Dedupe and windowed aggregation in one keyed operator, keyed by user: the Flink shell around
 * {@link UserLedger}, which decides every verdict and row (docs/behaviour.md "Aggregation",
 * "Rejections"). This class keeps the ledger's state, sets its timers and counts metrics.
 *
 * <p>Why one operator keyed by user rather than Flink's window operator keyed by (user, currency):
 * a transaction id must be deduplicated per user whatever its currency (a "duplicate" in another
 * currency is a conflict), and doing both here costs one network shuffle instead of two.
 *
 * <p>State: what is remembered of each counted id (per user a few packed chunks per hour of event
 * time, {@link SeenTransactions}), and the user's open windows (one value, not a map: firing and
 * cleaning then take a point read and write, never a RocksDB iterator, whose seeks step over the
 * tombstones of every window removed before and made the end of a bounded run quadratic), both
 * written back under {@link SpendingAggregatorOperator} ({@link WriteBackState}). Cleanup is by
 * event-time timers: window state once final, dedupe entries after the dedupe retention (checked on
 * hour-aligned timers, so one timer serves a whole hour of ids). At end of input (the final
 * watermark) a user's windows are all emitted on its first timer, without scanning its dedupe
 * memory.
 *
 * <p>With anomalies on, every counted transaction also goes to {@link AnomalyWatch}, which keeps
 * the user's baselines and judges them (side output {@link #ANOMALIES}).
 *
 * <p>Lateness is judged against the watermark this subtask checkpoints ({@link WatermarkFloor}), so
 * a recovered run decides as a failure-free one.
 */
final class SpendingAggregator
    extends KeyedProcessFunction<String, SourcedTransaction, WindowedSpending>
    implements CheckpointedFunction {

  private static final long serialVersionUID = 1L;

  /**
   * Records rejected by aggregation: {@code LATE}, {@code CONFLICTING_DUPLICATE}, {@code
   * AMOUNT_OVERFLOW}.
   */
  static final OutputTag<RejectedRecord> REJECTED =
      new OutputTag<>("tally-aggregation-rejections", TypeInformation.of(RejectedRecord.class));

  /** Transactions found anomalous (docs/behaviour.md "Anomalies"). */
  static final OutputTag<Anomaly> ANOMALIES =
      new OutputTag<>("tally-anomalies", StateTypes.ANOMALY);

  /** Name of the keyed state holding each user's open windows. */
  static final String OPEN_WINDOWS_STATE = "open-windows-by-user";

  private final UserLedger ledger;
  private final long windowSize;
  private final long retention;
  private final boolean dedupeFullIds;
  private final long earlyFiringInterval;
  private final StateSettings stateSettings;
  private final AnomalyWatch anomalies;
  private final boolean boundedInput;

  private transient SeenTransactions seen;
  private transient WriteBackState<OpenWindow[]> open;
  private transient int writeBackCapacity;
  private transient boolean keepWritten;
  private transient WatermarkFloor watermarks;
  private transient RestoreGuard restoreGuard;
  private transient AggregationMetrics metrics;

  /** An aggregator of unbounded input. */
  SpendingAggregator(AggregationSettings settings) {
    this(settings, null, false);
  }

  /** An aggregator of unbounded input that also watches for anomalies under {@code anomalyRule}. */
  SpendingAggregator(AggregationSettings settings, AnomalyRule anomalyRule) {
    this(settings, anomalyRule, false);
  }

  /** An aggregator without anomaly detection, of bounded or unbounded input. */
  SpendingAggregator(AggregationSettings settings, boolean boundedInput) {
    this(settings, null, boundedInput);
  }

  /**
   * @param anomalyRule the anomaly rule, {@code null} for no anomaly detection
   * @param boundedInput whether the input ends ({@link RestoreGuard}: a bounded run may resume from
   *     state taken after its end)
   */
  SpendingAggregator(AggregationSettings settings, AnomalyRule anomalyRule, boolean boundedInput) {
    this.boundedInput = boundedInput;
    this.ledger = new UserLedger(settings.windows(), settings.allowedLateness());
    this.windowSize = settings.windows().size().toMillis();
    this.retention = settings.dedupeRetention().toMillis();
    this.dedupeFullIds = settings.dedupeFullIds();
    this.earlyFiringInterval = settings.earlyFiringInterval().toMillis();
    this.anomalies = anomalyRule == null ? null : new AnomalyWatch(anomalyRule, settings);
    this.stateSettings =
        anomalyRule == null
            ? settings.stateSettings()
            : settings.stateSettings().withAnomalyRule(anomalyRule);
  }

  @Override
  public void open(OpenContext openContext) {
    seen =
        new SeenTransactions(
            getRuntimeContext().getMapState(SeenTransactions.DESCRIPTOR),
            writeBackCapacity,
            keepWritten,
            retention,
            dedupeFullIds);
    open =
        new WriteBackState<>(
            getRuntimeContext()
                .getState(new ValueStateDescriptor<>(OPEN_WINDOWS_STATE, StateTypes.OPEN_WINDOWS)),
            writeBackCapacity,
            keepWritten,
            windows -> windows.length == 0);
    metrics = new AggregationMetrics(getRuntimeContext().getMetricGroup(), watermarks::lastSeen);
    if (anomalies != null) {
      anomalies.open(getRuntimeContext(), writeBackCapacity, keepWritten);
    }
  }

  @Override
  public void processElement(SourcedTransaction in, Context ctx, Collector<WindowedSpending> out)
      throws Exception {
    restoreGuard.admit(in);
    Transaction tx = in.transaction();
    long watermark = watermarks.observe(ctx.timerService().currentWatermark());
    // The open windows are read only for a transaction that gets past dedupe and lateness.
    SeenHours ids = seen.of(tx.userId());
    long fingerprint = SeenIds.fingerprint(tx.transactionId());
    Optional<Verdict> screened =
        ledger.screen(tx, ids.find(tx.transactionId(), fingerprint), watermark);
    Verdict verdict =
        screened.isPresent() ? screened.get() : ledger.count(tx, open.get(tx.userId()), watermark);
    if (verdict instanceof Verdict.Counted counted) {
      seen.remember(tx.userId(), ids, tx, fingerprint);
      if (anomalies != null) {
        anomalies.counted(tx, watermark, ctx.timerService(), a -> ctx.output(ANOMALIES, a));
      }
      if (counted.upsert() != null) {
        emit(counted.upsert(), out);
      }
      open.set(tx.userId(), counted.windows());
      if (counted.opensWindow()) {
        registerWindowTimers(
            ctx, counted.windowStart(), counted.opensStart(), counted.upsert() != null, watermark);
      }
      if (counted.upsert() == null && earlyFiringInterval > 0) {
        long now = ctx.timerService().currentProcessingTime();
        ctx.timerService()
            .registerProcessingTimeTimer(
                now - Math.floorMod(now, earlyFiringInterval) + earlyFiringInterval);
      }
    } else if (verdict instanceof Verdict.Rejected rejection) {
      metrics.rejected(rejection.rejection().reason());
      ctx.output(REJECTED, RejectedRecord.of(rejection.rejection(), in.source()));
    } else {
      metrics.duplicateDropped();
    }
  }

  /**
   * The timers of a window just opened: its firing (unless it opened complete), its cleanup once
   * final, and the hour-aligned dedupe cleanup. Registering a timer is a RocksDB write even when
   * the same timer exists, so a window whose user already has an open window with the same start
   * (another currency) registers nothing: that window registered the same timestamps when it
   * opened, and they are still pending because they are all later than the watermark.
   */
  private void registerWindowTimers(
      Context ctx, long start, boolean opensStart, boolean complete, long watermark) {
    long dedupeCleanup = seen.cleanupTime(start + windowSize);
    // One dedupe-cleanup timer per window start, not per record. A retention shorter than the
    // lateness can have fired a sibling's already; then this one is registered (again).
    if (opensStart || dedupeCleanup <= watermark) {
      ctx.timerService().registerEventTimeTimer(dedupeCleanup);
    }
    if (!opensStart) {
      return;
    }
    if (!complete) {
      ctx.timerService().registerEventTimeTimer(ledger.completeAt(start));
    }
    if (complete || ledger.finalAt(start) != ledger.completeAt(start)) {
      ctx.timerService().registerEventTimeTimer(ledger.finalAt(start));
    }
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<WindowedSpending> out)
      throws Exception {
    String user = ctx.getCurrentKey();
    long watermark = watermarks.observe(ctx.timerService().currentWatermark());
    if (watermark == Long.MAX_VALUE) {
      // End of input (a bounded source is done, or a stop with drain): this watermark fires every
      // remaining timer of every user at once. The first one of a user emits and drops all its
      // windows, the others find nothing. The dedupe memory is left alone: nothing can arrive after
      // this watermark (it would be late), and scanning it per user would only cost time.
      OpenWindow[] windows = open.get(user);
      closeAllWindows(user, out);
      onAnomalyTimer(user, timestamp, watermark, windows, ctx);
    } else if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
      OpenWindow[] windows = open.get(user);
      if (windows != null) {
        store(user, ledger.fireEarly(user, windows, watermark), out);
      }
    } else {
      OpenWindow[] windows = open.get(user);
      fire(user, windows, timestamp, out);
      seen.cleanUpAt(user, timestamp);
      onAnomalyTimer(user, timestamp, watermark, windows, ctx);
    }
  }

  private void onAnomalyTimer(
      String user, long timestamp, long watermark, OpenWindow[] windows, OnTimerContext ctx)
      throws Exception {
    if (anomalies != null) {
      anomalies.onTimer(user, timestamp, watermark, windows, a -> ctx.output(ANOMALIES, a));
    }
  }

  /**
   * Judges every transaction of the current key still waiting for its anomaly baseline, as the
   * final watermark does: the end of input (see {@link SpendingAggregatorOperator}).
   */
  void judgeAllWaiting(String user, Consumer<Anomaly> out) throws Exception {
    if (anomalies != null) {
      anomalies.endInput(user, out);
    }
  }

  /** Whether anomalies are detected. */
  boolean detectsAnomalies() {
    return anomalies != null;
  }

  /**
   * Emits and drops every open window of the current key, as the final watermark does: the end of
   * input (see {@link SpendingAggregatorOperator}).
   */
  void closeAllWindows(String user, Collector<WindowedSpending> out) throws Exception {
    fire(user, open.get(user), Long.MAX_VALUE, out);
  }

  private void fire(
      String user, OpenWindow[] windows, long completeUpTo, Collector<WindowedSpending> out)
      throws Exception {
    if (windows != null) {
      store(user, ledger.fire(user, windows, completeUpTo), out);
    }
  }

  private void store(String user, Firing firing, Collector<WindowedSpending> out) throws Exception {
    for (WindowedSpending row : firing.rows()) {
      emit(row, out);
    }
    if (firing.changed()) {
      open.set(user, firing.windows());
    }
  }

  private void emit(WindowedSpending row, Collector<WindowedSpending> out) {
    metrics.windowEmitted();
    out.collect(row);
  }

  /** Raises the watermark floor to a watermark the operator received. */
  void observeWatermark(long watermark) {
    watermarks.observe(watermark);
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    watermarks = WatermarkFloor.restore(context.getOperatorStateStore());
    // Before anything is processed: a restore that cannot be exact fails the job here.
    restoreGuard =
        RestoreGuard.check(context, stateSettings, watermarks.restoredFloor(), boundedInput);
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    watermarks.snapshot();
    restoreGuard.snapshot();
  }

  /**
   * Keeps changed values on the heap, up to {@code capacity} users, until {@link #writeBack}. Only
   * for an operator that calls {@link #writeBack} before every snapshot, before iterating keys and
   * when {@link #writeBackFull}; without it every change is written at once. Called before {@link
   * #open}.
   *
   * @param keepWritten whether written values stay on the heap too ({@link WriteBackState}): only
   *     for a state backend that serializes every update
   */
  void writeBackUpTo(int capacity, boolean keepWritten) {
    writeBackCapacity = capacity;
    this.keepWritten = keepWritten;
  }

  /**
   * How many users' values wait for {@link #writeBack}: the largest of the open windows', the
   * dedupe memory's and the anomaly baselines' counts (a counted transaction changes each of its
   * user's).
   */
  int pendingUsers() {
    int pending = Math.max(open.pendingUsers(), seen.pendingUsers());
    return anomalies == null ? pending : Math.max(pending, anomalies.pendingUsers());
  }

  /** Whether as many users are pending as write-back may hold, in either cache. */
  boolean writeBackFull() {
    return open.full() || seen.full() || (anomalies != null && anomalies.full());
  }

  /** Writes every pending open-window and dedupe value to the state backend. */
  void writeBack(Consumer<String> selectKey) throws Exception {
    open.writeBack(selectKey);
    seen.writeBack(selectKey);
    if (anomalies != null) {
      anomalies.writeBack(selectKey);
    }
  }

  /**
   * Whether this aggregator judges anomalies, whose alerts wait behind whatever holds the task
   * thread at a checkpoint barrier; only then are values written ahead of it ({@link
   * #writeBackAhead}).
   */
  boolean watchesAnomalies() {
    return anomalies != null;
  }

  /**
   * Writes some pending values ahead of the next checkpoint barrier, so that the barrier finds few
   * ({@link WriteBackState#writeBackAhead}).
   *
   * @param remaining the part of the checkpoint interval still to come, from 1 to 0
   * @return whether a value was written (and the backend's current key changed)
   */
  boolean writeBackAhead(double remaining, Consumer<String> selectKey) throws Exception {
    boolean wrote = open.writeBackAhead(remaining, selectKey);
    wrote |= seen.writeBackAhead(remaining, selectKey);
    if (anomalies != null) {
      wrote |= anomalies.writeBackAhead(remaining, selectKey);
    }
    return wrote;
  }

  /** Ends a checkpoint interval, right after the barrier's {@link #writeBack}. */
  void markInterval() {
    open.markInterval();
    seen.markInterval();
    if (anomalies != null) {
      anomalies.markInterval();
    }
  }

  /**
   * Moves the current user's dedupe entries of a release that kept one map entry per id into {@link
   * SeenTransactions#STATE} (see {@link SpendingAggregatorOperator}).
   */
  void migrateLegacyDedupe(String user, MapState<String, SeenTransaction> legacy) throws Exception {
    seen.migrate(user, legacy);
  }

  /**
   * Moves the current user's dedupe entries of a release that kept them in one packed value into
   * {@link SeenTransactions#STATE} (see {@link SpendingAggregatorOperator}).
   */
  void migratePackedDedupe(String user, ValueState<SeenIds> packed) throws Exception {
    seen.migratePacked(user, packed);
  }
}
