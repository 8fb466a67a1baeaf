package dev.tally.runtime.topology;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.spending.Addition;
import dev.tally.domain.spending.Overflow;
import dev.tally.domain.spending.SpendingAggregate;
import dev.tally.domain.spending.SpendingKey;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.window.EventTimeWindow;
import dev.tally.domain.window.TumblingWindows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Dedupe and windowed aggregation in one keyed operator, keyed by user (SPEC "Aggregation",
 * "Rejections").
 *
 * <p>Why one operator keyed by user rather than Flink's window operator keyed by (user, currency):
 * a transaction id must be deduplicated per user whatever its currency (a "duplicate" in another
 * currency is a conflict), and doing both here costs one network shuffle instead of two. Per
 * record, in this order:
 *
 * <ol>
 *   <li>An id already counted for this user: dropped when the content is the same (metric {@code
 *       duplicates}), else rejected as {@code CONFLICTING_DUPLICATE}.
 *   <li>An event whose window is final (watermark at or past {@code end - 1 + allowed lateness},
 *       Flink's form of the SPEC's "watermark ≥ end + lateness") is rejected as {@code LATE}. Never
 *       dropped silently.
 *   <li>Otherwise it is added to its (currency, window) total; a total that would leave the 64-bit
 *       range rejects the record as {@code AMOUNT_OVERFLOW} and keeps the previous total.
 * </ol>
 *
 * <p>A window's row is emitted when the watermark passes its end; an accepted late event (within
 * the allowed lateness) re-emits the row at once; with early firing, changed open windows are
 * emitted every interval of processing time. Cleanup is by event-time timers: window state after
 * the allowed lateness, dedupe entries after the dedupe retention (checked on hour-aligned timers,
 * so one timer serves a whole hour of ids). At end of input (the final watermark) a user's windows
 * are all emitted on its first timer, without scanning its dedupe memory.
 *
 * <p>Watermarks are not part of Flink's checkpoints: after a restore the operator's watermark
 * starts from nothing until the sources emit again, and a replayed record that was late before the
 * failure could be counted. So the operator checkpoints the watermark it has seen and judges
 * lateness against the larger of that floor and the live watermark, which makes the {@code LATE}
 * verdicts of a recovered run those of a failure-free one.
 *
 * <p>Each user's open windows are one RocksDB value, read and rewritten by nearly every event.
 * Under {@link SpendingAggregatorOperator} they are written back instead: changed values stay on
 * the heap ({@link #writeBackUpTo}) and reach RocksDB right before the keyed state of every
 * checkpoint and savepoint is taken, before the end of input iterates the keys, and before an
 * element or timer once the bound is reached. Every read and write of the value goes through {@link
 * #openWindows} and {@link #setOpenWindows}, timers included, so the operator behaves as if it
 * wrote each change at once; checkpoints, savepoints and restores only ever see written state. A
 * busy user then costs one RocksDB read and write per checkpoint interval instead of two per event
 * (perf put the memtable search of that read at a tenth of the aggregator thread).
 *
 * <p>The domain decides; this class only keeps state and timers: window assignment is {@link
 * TumblingWindows}, arithmetic is {@link SpendingAggregate}.
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

  private static final long DEDUPE_TIMER_GRANULARITY = 3_600_000L;

  /** A pending write-back of "no open windows left", told apart from "nothing pending". */
  private static final OpenWindow[] NO_WINDOWS = new OpenWindow[0];

  /** Name of the keyed state holding each user's open windows. */
  static final String OPEN_WINDOWS_STATE = "open-windows-by-user";

  private final AggregationSettings settings;
  private final TumblingWindows windows;
  private final long windowSize;
  private final long lateness;
  private final long retention;
  private final long earlyFiringInterval;

  private transient MapState<String, SeenTransaction> seen;
  private transient ValueState<OpenWindow[]> open;

  /**
   * Open-window values changed since they were last written to {@link #open}, by user; {@link
   * #NO_WINDOWS} for "all closed". Empty and unused unless the operator enabled write-back.
   */
  private transient Map<String, OpenWindow[]> unwritten;

  private transient int writeBackCapacity;
  private transient Counter duplicates;
  private transient Counter windowsEmitted;
  private transient Map<RejectionReason, Counter> rejected;
  private transient ListState<Long> watermarkFloorState;
  private transient long watermarkFloor;
  private transient long lastSeenWatermark;

  SpendingAggregator(AggregationSettings settings) {
    this.settings = settings;
    this.windows = settings.windows();
    this.windowSize = settings.windows().size().toMillis();
    this.lateness = settings.allowedLateness().toMillis();
    this.retention = settings.dedupeRetention().toMillis();
    this.earlyFiringInterval = settings.earlyFiringInterval().toMillis();
  }

  @Override
  public void open(OpenContext openContext) {
    seen =
        getRuntimeContext()
            .getMapState(
                new MapStateDescriptor<>(
                    "seen-transactions",
                    TypeInformation.of(String.class),
                    StateTypes.SEEN_TRANSACTION));
    // One small value per user (its few open windows), not a map: firing and cleaning then take a
    // point read and write, never a RocksDB iterator, whose seeks step over the tombstones of
    // every window removed before and made the end of a bounded run quadratic.
    open =
        getRuntimeContext()
            .getState(new ValueStateDescriptor<>(OPEN_WINDOWS_STATE, StateTypes.OPEN_WINDOWS));
    MetricGroup tally = getRuntimeContext().getMetricGroup().addGroup("tally");
    duplicates = tally.counter("duplicatesDropped");
    windowsEmitted = tally.counter("windowsEmitted");
    // How far event time trails the wall clock at this operator: the freshness every closed window
    // waits for.
    tally.gauge(
        "watermarkLagMillis",
        (Gauge<Long>)
            () ->
                lastSeenWatermark == Long.MIN_VALUE
                    ? -1L
                    : System.currentTimeMillis() - lastSeenWatermark);
    rejected = new EnumMap<>(RejectionReason.class);
    MetricGroup byReason = tally.addGroup("rejected");
    for (RejectionReason reason :
        List.of(
            RejectionReason.LATE,
            RejectionReason.CONFLICTING_DUPLICATE,
            RejectionReason.AMOUNT_OVERFLOW)) {
      rejected.put(reason, byReason.counter(reason.name()));
    }
  }

  @Override
  public void processElement(SourcedTransaction in, Context ctx, Collector<WindowedSpending> out)
      throws Exception {
    Transaction tx = in.transaction();
    SeenTransaction previous = seen.get(tx.transactionId());
    if (previous != null) {
      if (previous.sameContentAs(tx)) {
        duplicates.inc();
      } else {
        reject(ctx, in, RejectionReason.CONFLICTING_DUPLICATE, conflictMessage(tx, previous));
      }
      return;
    }
    long eventTime = tx.eventTimeMillis();
    long start = windows.windowStart(eventTime);
    long lastMillis = start + windowSize - 1;
    long watermark = observeWatermark(ctx.timerService().currentWatermark());
    if (lastMillis + lateness <= watermark) {
      reject(ctx, in, RejectionReason.LATE, lateMessage(tx, start, watermark));
      return;
    }
    OpenWindow[] all = openWindows(tx.userId());
    int index = indexOf(all, tx.currency(), start);
    OpenWindow current = index < 0 ? null : all[index];
    Addition sum =
        (current == null
                ? SpendingAggregate.EMPTY
                : new SpendingAggregate(current.totalSpentCents(), current.transactionCount()))
            .add(tx.amountCents());
    if (!(sum instanceof SpendingAggregate updated)) {
      reject(
          ctx,
          in,
          RejectionReason.AMOUNT_OVERFLOW,
          "counting amount_cents "
              + tx.amountCents()
              + " in window "
              + new EventTimeWindow(start, start + windowSize)
              + " of "
              + tx.userId()
              + "/"
              + tx.currency()
              + ": "
              + ((Overflow) sum).message());
      return;
    }
    seen.put(tx.transactionId(), SeenTransaction.of(tx));
    // Late but within the allowed lateness: the window's row is already out, so upsert it now.
    boolean late = lastMillis <= watermark;
    OpenWindow next =
        (current == null ? new OpenWindow(tx.currency(), start, 0, 0, false, false) : current)
            .withValue(updated.totalSpentCents(), updated.transactionCount());
    if (late) {
      emit(ctx.getCurrentKey(), next, out);
      next = next.markEmitted();
    }
    setOpenWindows(tx.userId(), with(all, index, next));
    if (current == null) {
      registerWindowTimers(ctx, all, start, late, watermark);
    }
    if (!late && earlyFiringInterval > 0) {
      long now = ctx.timerService().currentProcessingTime();
      ctx.timerService()
          .registerProcessingTimeTimer(
              now - Math.floorMod(now, earlyFiringInterval) + earlyFiringInterval);
    }
  }

  /**
   * The timers of a window just opened: its firing (unless it opened late), its cleanup after the
   * allowed lateness, and the hour-aligned dedupe cleanup. Registering a timer is a RocksDB write
   * even when the same timer exists, so a window whose user already has an open window with the
   * same start (another currency) registers nothing: that window registered the same timestamps
   * when it opened, and they are still pending because they are all later than the watermark.
   */
  private void registerWindowTimers(
      Context ctx, OpenWindow[] siblings, long start, boolean late, long watermark) {
    long lastMillis = start + windowSize - 1;
    long dedupeCleanup = dedupeCleanupTime(start + windowSize);
    boolean shared = startsAlsoIn(siblings, start);
    // One dedupe-cleanup timer per window start, not per record. A retention shorter than the
    // lateness can have fired a sibling's already; then this one is registered (again) as before.
    if (!shared || dedupeCleanup <= watermark) {
      ctx.timerService().registerEventTimeTimer(dedupeCleanup);
    }
    if (shared) {
      return;
    }
    if (!late) {
      ctx.timerService().registerEventTimeTimer(lastMillis);
    }
    if (late || lateness > 0) {
      // The window's first event arrived after its end: only the cleanup timer is still to come.
      ctx.timerService().registerEventTimeTimer(lastMillis + lateness);
    }
  }

  private static boolean startsAlsoIn(OpenWindow[] all, long windowStart) {
    if (all != null) {
      for (OpenWindow window : all) {
        if (window.windowStart() == windowStart) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<WindowedSpending> out)
      throws Exception {
    String user = ctx.getCurrentKey();
    long watermark = observeWatermark(ctx.timerService().currentWatermark());
    if (watermark == Long.MAX_VALUE) {
      // End of input (a bounded source is done, or a stop with drain): this watermark fires every
      // remaining timer of every user at once. The first one of a user emits and drops all its
      // windows, the others find nothing. The dedupe memory is left alone: nothing can arrive after
      // this watermark (it would be late), and scanning it per user would only cost time.
      fireAndCleanWindows(user, Long.MAX_VALUE, out);
      return;
    }
    if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
      emitChangedOpenWindows(user, watermark, out);
      return;
    }
    fireAndCleanWindows(user, timestamp, out);
    if (Math.floorMod(timestamp, DEDUPE_TIMER_GRANULARITY) == 0) {
      forgetTransactionsBefore(timestamp - retention);
    }
  }

  /**
   * Emits and drops every open window of the current key, as the final watermark does: the end of
   * input (see {@link SpendingAggregatorOperator}).
   */
  void closeAllWindows(String user, Collector<WindowedSpending> out) throws Exception {
    fireAndCleanWindows(user, Long.MAX_VALUE, out);
  }

  /**
   * The watermark to judge by: the live one, never below what this subtask saw before a restore.
   */
  private long observeWatermark(long live) {
    if (live > lastSeenWatermark) {
      lastSeenWatermark = live;
    }
    return Math.max(live, watermarkFloor);
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    watermarkFloorState.update(List.of(Math.max(lastSeenWatermark, watermarkFloor)));
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    watermarkFloorState =
        context
            .getOperatorStateStore()
            .getUnionListState(new ListStateDescriptor<>("watermark-floor", Long.class));
    // Every subtask saw the same broadcast watermarks; after rescaling, the smallest is one all
    // passed.
    long floor = Long.MIN_VALUE;
    boolean any = false;
    for (Long restored : watermarkFloorState.get()) {
      floor = any ? Math.min(floor, restored) : restored;
      any = true;
    }
    watermarkFloor = floor;
    lastSeenWatermark = Long.MIN_VALUE;
  }

  /**
   * Emits every window whose end the watermark passed and that was not emitted as is; drops
   * finished ones.
   */
  private void fireAndCleanWindows(String user, long watermark, Collector<WindowedSpending> out)
      throws Exception {
    OpenWindow[] all = openWindows(user);
    if (all == null) {
      return;
    }
    List<OpenWindow> kept = new ArrayList<>(all.length);
    boolean changed = false;
    for (OpenWindow window : all) {
      long lastMillis = window.windowStart() + windowSize - 1;
      if (lastMillis > watermark) {
        kept.add(window);
        continue;
      }
      if (!window.emitted()) {
        emit(user, window, out);
        changed = true;
      }
      if (lastMillis + lateness <= watermark) {
        changed = true;
      } else {
        kept.add(window.markEmitted());
      }
    }
    store(user, kept, changed);
  }

  private void emitChangedOpenWindows(String user, long watermark, Collector<WindowedSpending> out)
      throws Exception {
    OpenWindow[] all = openWindows(user);
    if (all == null) {
      return;
    }
    List<OpenWindow> kept = new ArrayList<>(all.length);
    boolean changed = false;
    for (OpenWindow window : all) {
      if (!window.emitted() && window.windowStart() + windowSize - 1 > watermark) {
        emit(user, window, out);
        kept.add(window.markEmitted());
        changed = true;
      } else {
        kept.add(window);
      }
    }
    store(user, kept, changed);
  }

  private void store(String user, List<OpenWindow> kept, boolean changed) throws Exception {
    if (changed) {
      setOpenWindows(user, kept.toArray(NO_WINDOWS));
    }
  }

  /**
   * Keeps changed open-window values on the heap, up to {@code capacity} users, until {@link
   * #writeBack}. Only for an operator that calls {@link #writeBack} before every snapshot, before
   * iterating keys and when {@link #writeBackFull}; without it every change is written at once.
   */
  void writeBackUpTo(int capacity) {
    writeBackCapacity = capacity;
    unwritten = new HashMap<>();
  }

  /** How many users' values wait for {@link #writeBack}. */
  int pendingUsers() {
    return unwritten == null ? 0 : unwritten.size();
  }

  /** Whether as many users are pending as write-back may hold. */
  boolean writeBackFull() {
    return writeBackCapacity > 0 && unwritten.size() >= writeBackCapacity;
  }

  /**
   * Writes every pending open-window value to the state backend.
   *
   * @param selectKey makes a user the backend's current key; the caller restores its own after
   */
  void writeBack(Consumer<String> selectKey) throws Exception {
    if (unwritten == null || unwritten.isEmpty()) {
      return;
    }
    for (Map.Entry<String, OpenWindow[]> pending : unwritten.entrySet()) {
      selectKey.accept(pending.getKey());
      write(pending.getValue());
    }
    unwritten.clear();
  }

  /** The current user's open windows, {@code null} for none: pending or else stored. */
  private OpenWindow[] openWindows(String user) throws Exception {
    if (writeBackCapacity > 0) {
      OpenWindow[] pending = unwritten.get(user);
      if (pending != null) {
        return pending.length == 0 ? null : pending;
      }
    }
    return open.value();
  }

  /** Sets the current user's open windows ({@code null} or empty for none). */
  private void setOpenWindows(String user, OpenWindow[] windows) throws Exception {
    OpenWindow[] value = windows == null ? NO_WINDOWS : windows;
    if (writeBackCapacity > 0) {
      unwritten.put(user, value);
    } else {
      write(value);
    }
  }

  private void write(OpenWindow[] windows) throws Exception {
    if (windows.length == 0) {
      open.clear();
    } else {
      open.update(windows);
    }
  }

  private static int indexOf(OpenWindow[] all, String currency, long windowStart) {
    if (all != null) {
      for (int i = 0; i < all.length; i++) {
        if (all[i].is(currency, windowStart)) {
          return i;
        }
      }
    }
    return -1;
  }

  /** {@code all} with {@code window} at {@code index}, or appended when {@code index} is -1. */
  private static OpenWindow[] with(OpenWindow[] all, int index, OpenWindow window) {
    if (all == null) {
      return new OpenWindow[] {window};
    }
    OpenWindow[] copy = Arrays.copyOf(all, index < 0 ? all.length + 1 : all.length);
    copy[index < 0 ? all.length : index] = window;
    return copy;
  }

  private void forgetTransactionsBefore(long eventTimeExclusive) throws Exception {
    Iterator<Map.Entry<String, SeenTransaction>> entries = seen.iterator();
    while (entries.hasNext()) {
      if (entries.next().getValue().eventTimeMillis() < eventTimeExclusive) {
        entries.remove();
      }
    }
  }

  /**
   * The first hour-aligned instant after the ids of a window ending at {@code windowEnd} expire, so
   * the windows of one hour share one timer.
   */
  private long dedupeCleanupTime(long windowEnd) {
    long expiry = windowEnd + retention;
    return expiry - Math.floorMod(expiry, DEDUPE_TIMER_GRANULARITY) + DEDUPE_TIMER_GRANULARITY;
  }

  private void emit(String user, OpenWindow window, Collector<WindowedSpending> out) {
    windowsEmitted.inc();
    out.collect(
        new WindowedSpending(
            new SpendingKey(user, window.currency()),
            new EventTimeWindow(window.windowStart(), window.windowStart() + windowSize),
            new SpendingAggregate(window.totalSpentCents(), window.transactionCount()),
            !window.everEmitted()));
  }

  private void reject(Context ctx, SourcedTransaction in, RejectionReason reason, String message) {
    rejected.get(reason).inc();
    ctx.output(REJECTED, new RejectedRecord(reason, message, in.source()));
  }

  private String lateMessage(Transaction tx, long windowStart, long watermark) {
    return "event_timestamp "
        + tx.eventTime()
        + " falls in window "
        + new EventTimeWindow(windowStart, windowStart + windowSize)
        + ", final since the watermark "
        + Instant.ofEpochMilli(watermark + 1)
        + " passed its end plus the allowed lateness "
        + settings.allowedLateness();
  }

  private static String conflictMessage(Transaction tx, SeenTransaction counted) {
    return "transaction_id "
        + tx.transactionId()
        + " was already counted for user "
        + tx.userId()
        + " with amount_cents="
        + counted.amountCents()
        + " currency="
        + counted.currency()
        + " event_timestamp="
        + Instant.ofEpochMilli(counted.eventTimeMillis())
        + "; this record has amount_cents="
        + tx.amountCents()
        + " currency="
        + tx.currency()
        + " event_timestamp="
        + tx.eventTime();
  }
}
