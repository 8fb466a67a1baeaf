package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.Anomaly;
import dev.tally.domain.anomaly.AnomalyDetector;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.domain.anomaly.AnomalyVerdict;
import dev.tally.domain.anomaly.PendingJudgement;
import dev.tally.domain.spending.OpenWindow;
import dev.tally.domain.spending.UserLedger;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.window.TumblingWindows;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimerService;

/**
 * The anomaly rule in the aggregator (docs/behaviour.md "Anomalies"): the Flink shell around {@link
 * AnomalyDetector}, which decides everything. The aggregator hands it every transaction it counted,
 * so exact duplicates and rejected records never reach a baseline, and no event crosses the network
 * a second time.
 *
 * <p>State, under the aggregator's key (the user): one value ({@value #STATE}, {@link
 * UserBaselines}) with the user's whole anomaly state: per currency the baseline head and its hour
 * buckets, and the transactions waiting for the watermark, behind the aggregator's write-back
 * ({@link WriteBackState}). An event or a timer reads it at most once and sets it once, only if it
 * changed: O(1) state calls, not one per bucket, head and waiting transaction (and never an
 * iterator).
 *
 * <p>Timers: one at the watermark that judges an hour ({@link AnomalyDetector#judgeAt}), registered
 * when a waiting transaction opens its hour; and one per UTC day of buckets, when the last hour of
 * that day can be forgotten, registered once per day (the value notes the latest). The aggregator
 * calls {@link #onTimer} on each of its event-time timers; it reads the value only where it can
 * have work ({@link #mayBeDue}, {@link #forgetsAt}, the end of input), judges what the watermark
 * completed and, at a forget instant, forgets the buckets no later judgement can need; a user
 * silent for 7 days (plus the allowed lateness, plus the rest of the day of its last bucket) then
 * holds no anomaly state.
 */
final class AnomalyWatch implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Name of the keyed value state holding each user's anomaly state. */
  static final String STATE = "anomaly-baselines";

  /**
   * The map state that held baseline heads per currency in releases before {@link #STATE}: its
   * presence in restored state is refused ({@link #refuseRetiredLayout}).
   */
  static final String RETIRED_HEADS = "anomaly-baseline-heads";

  private static final long HOURS_PER_DAY = 24;
  private static final long BASELINE = AnomalyDetector.BASELINE_HOURS;

  private final AnomalyDetector detector;
  private final TumblingWindows windows;
  private final UserLedger ledger;
  private final long lateness;

  private transient WriteBackState<UserBaselines> state;
  private transient Counter anomalies;

  AnomalyWatch(AnomalyRule rule, AggregationSettings settings) {
    this.detector = new AnomalyDetector(rule);
    this.windows = settings.windows();
    this.ledger = new UserLedger(settings.windows(), settings.allowedLateness());
    this.lateness = settings.allowedLateness().toMillis();
  }

  AnomalyRule rule() {
    return detector.rule();
  }

  /**
   * @param writeBackUsers how many users' values may wait on the heap ({@link WriteBackState})
   * @param keepWritten whether written values stay on the heap ({@link WriteBackState})
   */
  void open(RuntimeContext context, int writeBackUsers, boolean keepWritten) {
    open(
        context.getState(new ValueStateDescriptor<>(STATE, StateTypes.USER_BASELINES)),
        context.getMetricGroup().addGroup("tally").counter("anomalies"),
        writeBackUsers,
        keepWritten);
  }

  /** {@link #open(RuntimeContext, int, boolean)} with the state and counter given. */
  void open(
      ValueState<UserBaselines> baselines,
      Counter anomalyCount,
      int writeBackUsers,
      boolean keepWritten) {
    state = new WriteBackState<>(baselines, writeBackUsers, keepWritten, UserBaselines::isEmpty);
    anomalies = anomalyCount;
  }

  /**
   * The message that refuses a restore of state in the retired layout (map states per currency and
   * hour, {@value #RETIRED_HEADS}): this build neither reads nor migrates it, and starting anyway
   * would judge every restored user against an empty baseline.
   */
  static String refuseRetiredLayout() {
    return "The restored state of "
        + SpendingTopology.AGGREGATOR_UID
        + " holds anomaly baselines in the layout of an earlier release (map state "
        + RETIRED_HEADS
        + "), which this build does not read: it keeps a user's anomaly state in one value ("
        + STATE
        + "), so the job does not start. Start without state (the baselines rebuild from 7 days"
        + " of input), or resume with the release that wrote the state";
  }

  /** A transaction the aggregator counted for the current user. */
  void counted(Transaction tx, long watermark, TimerService timers, Consumer<Anomaly> out)
      throws Exception {
    UserBaselines user = state.get(tx.userId());
    if (user == null) {
      user = new UserBaselines();
    }
    AnomalyDetector.Arrival arrival =
        detector.arrive(tx.currency(), tx.eventTimeMillis(), tx.amountCents(), watermark, user);
    if (arrival instanceof AnomalyDetector.Decided decided) {
      report(
          tx.transactionId(),
          tx.userId(),
          tx.currency(),
          tx.eventTimeMillis(),
          decided.verdict(),
          out);
    } else if (arrival instanceof AnomalyDetector.Waiting waiting) {
      user.await(
          new PendingJudgement(
              tx.transactionId(), tx.currency(), tx.eventTimeMillis(), tx.amountCents()));
      if (waiting.newBucket()) {
        timers.registerEventTimeTimer(AnomalyDetector.judgeAt(waiting.hour()));
      }
    }
    if (arrival.newBucket()) {
      long day = Math.floorDiv(arrival.hour(), HOURS_PER_DAY);
      if (day > user.forgetDay()) {
        timers.registerEventTimeTimer(forgettableAt((day + 1) * HOURS_PER_DAY - 1));
        user.forgetTimerRegistered(day);
      }
    }
    store(tx.userId(), user);
  }

  /**
   * An event-time timer of the current user fired at {@code timestamp}, the watermark at {@code
   * watermark}: judges the transactions it completes the baseline of, and at a forget instant
   * forgets the buckets no later judgement can need. Any of the aggregator's timers may be it; the
   * value is read only when something can be due ({@link #mayBeDue}), through the write-back.
   *
   * @param open the user's open windows when the timer fired, {@code null} for none
   */
  void onTimer(
      String user, long timestamp, long watermark, OpenWindow[] open, Consumer<Anomaly> out)
      throws Exception {
    boolean forgets = forgetsAt(timestamp);
    if (watermark != Long.MAX_VALUE && !forgets && !mayBeDue(timestamp, open)) {
      return;
    }
    UserBaselines baselines = state.get(user);
    if (baselines == null) {
      return;
    }
    judgeWaiting(baselines, user, watermark, out);
    if (forgets && watermark != Long.MAX_VALUE && watermark >= Long.MIN_VALUE + lateness + 1) {
      // Not at the end of input (nothing more is judged, and the state ends with the job), and
      // only once there is event time to forget by.
      long earliest = AnomalyDetector.hourOf(windows.windowStart(watermark - lateness + 1));
      for (String currency : baselines.currencies()) {
        detector.forget(currency, earliest, baselines);
      }
    }
    store(user, baselines);
  }

  /**
   * Whether a timer at {@code timestamp} (not at the end of input) can have a waiting transaction
   * to judge, told without the value: only at a judge instant ({@link AnomalyDetector#judgeAt}) of
   * an hour {@code h}, and only if the user has an open window over part of {@code h}. A waiting
   * transaction of an earlier hour was judged by its own timer at its own judge instant (registered
   * with its hour's bucket, and fired in timestamp order before this one); one of hour {@code h}
   * was counted into a window over its event time, which is still open, as it is final only after
   * {@code timestamp}. The window timers of every hour fall on judge instants too, so this is what
   * spares their reads.
   */
  boolean mayBeDue(long timestamp, OpenWindow[] open) {
    if (open == null || Math.floorMod(timestamp + 1, AnomalyDetector.HOUR_MILLIS) != 0) {
      return false;
    }
    long hourStart = timestamp + 1;
    long hourEnd = hourStart + AnomalyDetector.HOUR_MILLIS;
    long size = windows.size().toMillis();
    for (OpenWindow window : open) {
      if (window.windowStart() < hourEnd && window.windowStart() + size > hourStart) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code timestamp} is the instant of a forget timer ({@link #forgettableAt} of the last
   * hour of some day), told by arithmetic: such an instant lies between the day's last baseline
   * instant plus the lateness and that plus one window, so only the few days whose last instant
   * falls in that range are tried.
   */
  boolean forgetsAt(long timestamp) {
    long size = windows.size().toMillis();
    long hour = AnomalyDetector.HOUR_MILLIS;
    // The last instant of day d's baseline reach: ((d + 1) * 24 + 168) * hour - 1.
    long latest = Math.floorDiv(Math.floorDiv(timestamp - lateness + 1, hour) - BASELINE, 24) - 1;
    for (long day = latest; ; day--) {
      long lastInstant = ((day + 1) * HOURS_PER_DAY + BASELINE) * hour - 1;
      if (lastInstant < timestamp - lateness - size + 1) {
        return false;
      }
      if (forgettableAt((day + 1) * HOURS_PER_DAY - 1) == timestamp) {
        return true;
      }
    }
  }

  /** The end of input: judges every waiting transaction of the current user. */
  void endInput(String user, Consumer<Anomaly> out) throws Exception {
    UserBaselines baselines = state.get(user);
    if (baselines != null) {
      judgeWaiting(baselines, user, Long.MAX_VALUE, out);
      store(user, baselines);
    }
  }

  private void store(String user, UserBaselines baselines) throws Exception {
    if (!baselines.changed()) {
      return;
    }
    // An empty value is stored as none at the write-back.
    state.set(user, baselines);
    baselines.stored();
  }

  /** How many users' values wait for {@link #writeBack}. */
  int pendingUsers() {
    return state.pendingUsers();
  }

  /** Whether as many users are pending as write-back may hold. */
  boolean full() {
    return state.full();
  }

  /** Writes every pending value to the state backend ({@link WriteBackState#writeBack}). */
  void writeBack(Consumer<String> selectKey) throws Exception {
    state.writeBack(selectKey);
  }

  /** Writes ahead of the next checkpoint barrier ({@link WriteBackState#writeBackAhead}). */
  boolean writeBackAhead(double remaining, Consumer<String> selectKey) throws Exception {
    return state.writeBackAhead(remaining, selectKey);
  }

  /** Ends a checkpoint interval ({@link WriteBackState#markInterval}). */
  void markInterval() {
    state.markInterval();
  }

  private void judgeWaiting(
      UserBaselines baselines, String user, long watermark, Consumer<Anomaly> out) {
    List<PendingJudgement> due = new ArrayList<>();
    List<PendingJudgement> waiting = new ArrayList<>();
    for (PendingJudgement p : baselines.pending()) {
      (AnomalyDetector.judgeAt(p.hour()) <= watermark ? due : waiting).add(p);
    }
    if (due.isEmpty()) {
      return;
    }
    // Hour by hour, so each currency's cursor only moves forward.
    due.sort(Comparator.comparingLong(PendingJudgement::hour));
    for (PendingJudgement p : due) {
      report(
          p.transactionId(),
          user,
          p.currency(),
          p.eventTimeMillis(),
          detector.judge(p, baselines),
          out);
    }
    baselines.keepWaiting(waiting);
  }

  private void report(
      String transactionId,
      String user,
      String currency,
      long eventTime,
      AnomalyVerdict verdict,
      Consumer<Anomaly> out) {
    if (verdict instanceof AnomalyVerdict.Anomalous anomalous) {
      anomalies.inc();
      out.accept(Anomaly.of(transactionId, user, currency, eventTime, anomalous));
    }
  }

  /**
   * The watermark from which no transaction with the bucket of {@code hour} in its baseline can
   * still be counted: every window holding part of the 168th hour after it is final.
   */
  long forgettableAt(long hour) {
    long lastInstant =
        (hour + AnomalyDetector.BASELINE_HOURS + 1) * AnomalyDetector.HOUR_MILLIS - 1;
    return ledger.finalAt(windows.windowStart(lastInstant));
  }
}
