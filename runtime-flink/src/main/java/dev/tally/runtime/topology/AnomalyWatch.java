package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.Anomaly;
import dev.tally.domain.anomaly.AnomalyDetector;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.domain.anomaly.AnomalyVerdict;
import dev.tally.domain.anomaly.BaselineHead;
import dev.tally.domain.anomaly.BaselineStore;
import dev.tally.domain.anomaly.HourBucket;
import dev.tally.domain.anomaly.PendingJudgement;
import dev.tally.domain.spending.UserLedger;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.window.TumblingWindows;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimerService;

/**
 * The anomaly rule in the aggregator (docs/behaviour.md "Anomalies"): the Flink shell around {@link
 * AnomalyDetector}, which decides everything. The aggregator hands it every transaction it counted,
 * so exact duplicates and rejected records never reach a baseline, and no event crosses the network
 * a second time.
 *
 * <p>State, under the aggregator's key (the user): per currency a {@link BaselineHead} (map state
 * {@value #HEADS}), per (currency, hour) a {@link HourBucket} (map state {@value #BUCKETS}), and
 * the user's transactions waiting for the watermark (list state {@value #PENDING}, appended without
 * a read). An event reads and writes its bucket, and its head only when it opens an hour or is
 * judged at once. Timers: one at the watermark that judges an hour ({@link
 * AnomalyDetector#judgeAt}), one when an hour's bucket can be forgotten; a user silent for 7 days
 * (plus the allowed lateness) then holds no anomaly state. The aggregator calls {@link #onTimer} on
 * each of its event-time timers.
 */
final class AnomalyWatch implements Serializable {

  private static final long serialVersionUID = 1L;

  static final String HEADS = "anomaly-baseline-heads";
  static final String BUCKETS = "anomaly-baseline-buckets";
  static final String PENDING = "anomaly-pending";

  private final AnomalyDetector detector;
  private final TumblingWindows windows;
  private final UserLedger ledger;
  private final long lateness;

  private transient MapState<String, BaselineHead> heads;
  private transient MapState<Tuple2<String, Long>, HourBucket> buckets;
  private transient ListState<PendingJudgement> pending;
  private transient Store store;
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

  void open(RuntimeContext context) {
    heads =
        context.getMapState(
            new MapStateDescriptor<>(HEADS, Types.STRING, StateTypes.BASELINE_HEAD));
    buckets =
        context.getMapState(
            new MapStateDescriptor<>(
                BUCKETS, Types.TUPLE(Types.STRING, Types.LONG), StateTypes.HOUR_BUCKET));
    pending =
        context.getListState(new ListStateDescriptor<>(PENDING, StateTypes.PENDING_JUDGEMENT));
    store = new Store();
    anomalies = context.getMetricGroup().addGroup("tally").counter("anomalies");
  }

  /** A transaction the aggregator counted for the current user. */
  void counted(Transaction tx, long watermark, TimerService timers, Consumer<Anomaly> out)
      throws Exception {
    AnomalyDetector.Arrival arrival =
        detector.arrive(tx.currency(), tx.eventTimeMillis(), tx.amountCents(), watermark, store);
    if (arrival instanceof AnomalyDetector.Decided decided) {
      report(
          tx.transactionId(),
          tx.userId(),
          tx.currency(),
          tx.eventTimeMillis(),
          decided.verdict(),
          out);
    } else if (arrival instanceof AnomalyDetector.Waiting waiting) {
      pending.add(
          new PendingJudgement(
              tx.transactionId(), tx.currency(), tx.eventTimeMillis(), tx.amountCents()));
      if (waiting.newBucket()) {
        timers.registerEventTimeTimer(AnomalyDetector.judgeAt(waiting.hour()));
      }
    }
    if (arrival.newBucket()) {
      timers.registerEventTimeTimer(forgettableAt(arrival.hour()));
    }
  }

  /**
   * An event-time timer of the current user fired at {@code watermark}: judges the transactions it
   * completes the baseline of, then forgets the buckets no later judgement can need.
   */
  void onTimer(String user, long watermark, Consumer<Anomaly> out) throws Exception {
    judgeWaiting(user, watermark, out);
    if (watermark == Long.MAX_VALUE || watermark < Long.MIN_VALUE + lateness + 1) {
      // End of input: nothing more is judged, and the state ends with the job. Or no event time
      // yet to forget by.
      return;
    }
    long earliest = AnomalyDetector.hourOf(windows.windowStart(watermark - lateness + 1));
    List<String> currencies = new ArrayList<>(2);
    for (String currency : heads.keys()) {
      currencies.add(currency);
    }
    for (String currency : currencies) {
      detector.forget(currency, earliest, store);
    }
  }

  /** The end of input: judges every waiting transaction of the current user. */
  void endInput(String user, Consumer<Anomaly> out) throws Exception {
    judgeWaiting(user, Long.MAX_VALUE, out);
  }

  private void judgeWaiting(String user, long watermark, Consumer<Anomaly> out) throws Exception {
    Iterable<PendingJudgement> stored = pending.get();
    if (stored == null) {
      return;
    }
    List<PendingJudgement> due = new ArrayList<>();
    List<PendingJudgement> waiting = new ArrayList<>();
    for (PendingJudgement p : stored) {
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
          detector.judge(p, store),
          out);
    }
    pending.update(waiting);
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
  private long forgettableAt(long hour) {
    long lastInstant =
        (hour + AnomalyDetector.BASELINE_HOURS + 1) * AnomalyDetector.HOUR_MILLIS - 1;
    return ledger.finalAt(windows.windowStart(lastInstant));
  }

  /** The detector's view of the current user's state. */
  private final class Store implements BaselineStore<Exception> {
    @Override
    public BaselineHead head(String currency) throws Exception {
      return heads.get(currency);
    }

    @Override
    public void putHead(String currency, BaselineHead head) throws Exception {
      heads.put(currency, head);
    }

    @Override
    public void removeHead(String currency) throws Exception {
      heads.remove(currency);
    }

    @Override
    public HourBucket bucket(String currency, long hour) throws Exception {
      return buckets.get(Tuple2.of(currency, hour));
    }

    @Override
    public void putBucket(String currency, long hour, HourBucket bucket) throws Exception {
      buckets.put(Tuple2.of(currency, hour), bucket);
    }

    @Override
    public void removeBucket(String currency, long hour) throws Exception {
      buckets.remove(Tuple2.of(currency, hour));
    }
  }
}
