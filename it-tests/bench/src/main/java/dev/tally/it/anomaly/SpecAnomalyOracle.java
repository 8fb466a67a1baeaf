package dev.tally.it.anomaly;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The anomaly rule of docs/behaviour.md "Anomalies", by brute force and in exact integers, written
 * from the contract alone so that it can check Tally's own implementation: for every accepted
 * transaction T with a positive amount, its baseline is every accepted positive transaction of the
 * same (user, currency) in the 168 whole UTC hours before T's hour, and T is anomalous when the
 * baseline holds at least {@link #MIN_BASELINE} transactions and {@code n·a − S > 0} and {@code
 * (n·a − S)² > k²·(n·Q − S²)}.
 *
 * <p>Accepted: not late, and the first record of its (user, transaction id).
 */
public final class SpecAnomalyOracle {

  /** The contract's default minimum baseline size. */
  public static final int MIN_BASELINE = 20;

  /** The contract's default k. */
  public static final BigDecimal K = new BigDecimal("4");

  /** The baseline's length in whole hours. */
  public static final long BASELINE_HOURS = 168;

  /** The decimal places of the mean and deviation in Tally's table (docs/behaviour.md). */
  private static final int REPORTED_SCALE = 4;

  /** A baseline's exact count, sum and sum of squares of amounts. */
  public record Baseline(long count, BigInteger sum, BigInteger sumOfSquares) {

    static final Baseline EMPTY = new Baseline(0, BigInteger.ZERO, BigInteger.ZERO);

    Baseline plus(long amount) {
      BigInteger a = BigInteger.valueOf(amount);
      return new Baseline(count + 1, sum.add(a), sumOfSquares.add(a.multiply(a)));
    }
  }

  /** The decision for one transaction, and the baseline it was made on. */
  public record Verdict(RawTransaction transaction, Baseline baseline, boolean anomalous) {}

  private final int minBaseline;
  private final BigInteger kHundredthsSquared;

  /**
   * @param k at most two fraction digits, as the contract allows
   */
  public SpecAnomalyOracle(int minBaseline, BigDecimal k) {
    this.minBaseline = minBaseline;
    BigInteger hundredths = k.movePointRight(2).toBigIntegerExact();
    this.kHundredthsSquared = hundredths.multiply(hundredths);
  }

  /** The contract's defaults: 20 transactions, k = 4. */
  public static SpecAnomalyOracle defaults() {
    return new SpecAnomalyOracle(MIN_BASELINE, K);
  }

  /** A verdict for every accepted transaction with a positive amount. */
  public Map<TransactionKey, Verdict> verdicts(List<RawTransaction> records) {
    List<RawTransaction> accepted =
        Baselines.firstOfEachId(records.stream().filter(r -> !r.late()).toList());
    Map<TransactionKey, Verdict> verdicts = new TreeMap<>();
    for (List<RawTransaction> rows : Baselines.positiveByKey(accepted).values()) {
      // A baseline depends on T's hour alone: summed once per hour of the key, not per T.
      Map<Long, Baseline> byHour = new HashMap<>();
      for (RawTransaction t : rows) {
        Baseline b =
            byHour.computeIfAbsent(Baselines.hourOf(t.eventMillis()), h -> baseline(rows, t));
        verdicts.put(t.id(), new Verdict(t, b, anomalous(t.amountCents(), b)));
      }
    }
    return verdicts;
  }

  /** The anomalous transactions, as the anomaly table must hold them. */
  public Map<TransactionKey, Anomaly> anomalies(List<RawTransaction> records) {
    Map<TransactionKey, Anomaly> rows = new TreeMap<>();
    for (Verdict v : verdicts(records).values()) {
      if (v.anomalous()) {
        rows.put(v.transaction().id(), row(v.transaction(), v.baseline()));
      }
    }
    return rows;
  }

  /**
   * Whether a watermark of {@code watermark} has decided {@code t}: it has completed the hour
   * before t's (watermark ≥ the start of t's hour − 1 ms), docs/behaviour.md "Anomalies", "When".
   */
  public static boolean decidedBy(RawTransaction t, long watermark) {
    return watermark >= Baselines.hourOf(t.eventMillis()) - 1;
  }

  /**
   * The anomalous {@code verdicts} that a watermark of {@code watermark} has decided, as Tally's
   * table and topic report them: mean and standard deviation rounded half-even to four places, the
   * score to 16 significant digits and then to the table's double.
   */
  public static Map<TransactionKey, AnomalyReport> reports(
      Map<TransactionKey, Verdict> verdicts, long watermark) {
    Map<TransactionKey, AnomalyReport> reports = new TreeMap<>();
    for (Verdict v : verdicts.values()) {
      if (v.anomalous() && decidedBy(v.transaction(), watermark)) {
        RawTransaction t = v.transaction();
        Figures f = figures(t, v.baseline());
        reports.put(
            t.id(),
            new AnomalyReport(
                t.transactionId(),
                t.userId(),
                t.currency(),
                t.eventTime(),
                t.amountCents(),
                v.baseline().count(),
                f.mean().setScale(REPORTED_SCALE, RoundingMode.HALF_EVEN),
                f.stddev().setScale(REPORTED_SCALE, RoundingMode.HALF_EVEN),
                f.score() == null ? null : f.score().round(MathContext.DECIMAL64).doubleValue()));
      }
    }
    return reports;
  }

  /** The contract's test on an exact baseline. */
  public boolean anomalous(long amount, Baseline b) {
    if (b.count() < minBaseline) {
      return false;
    }
    BigInteger n = BigInteger.valueOf(b.count());
    BigInteger excess = n.multiply(BigInteger.valueOf(amount)).subtract(b.sum());
    BigInteger spread = n.multiply(b.sumOfSquares()).subtract(b.sum().multiply(b.sum()));
    return excess.signum() > 0
        && excess
                .multiply(excess)
                .multiply(BigInteger.valueOf(10_000))
                .compareTo(kHundredthsSquared.multiply(spread))
            > 0;
  }

  /** {@code [hour(T) − 168 h, hour(T))} over the key's positive transactions, in time order. */
  private static Baseline baseline(List<RawTransaction> keyRows, RawTransaction t) {
    long end = Baselines.hourOf(t.eventMillis());
    long start = end - BASELINE_HOURS * Baselines.HOUR_MILLIS;
    Baseline b = Baseline.EMPTY;
    for (RawTransaction r : keyRows) {
      if (r.eventMillis() >= end) {
        break; // the key's rows are in event-time order
      }
      if (r.eventMillis() >= start) {
        b = b.plus(r.amountCents());
      }
    }
    return b;
  }

  /** The table row: mean, population σ and score from the exact sums, rounded once to double. */
  static Anomaly row(RawTransaction t, Baseline b) {
    Figures f = figures(t, b);
    return Anomaly.of(
        t,
        b.count(),
        f.mean().doubleValue(),
        f.stddev().doubleValue(),
        f.score() == null ? null : f.score().doubleValue());
  }

  /** Mean, population σ and score (null when σ = 0), each to 34 significant digits. */
  private record Figures(BigDecimal mean, BigDecimal stddev, BigDecimal score) {}

  private static Figures figures(RawTransaction t, Baseline b) {
    MathContext mc = MathContext.DECIMAL128;
    BigDecimal n = BigDecimal.valueOf(b.count());
    BigDecimal spread =
        new BigDecimal(
            BigInteger.valueOf(b.count())
                .multiply(b.sumOfSquares())
                .subtract(b.sum().multiply(b.sum())));
    BigDecimal root = spread.sqrt(mc);
    BigDecimal excess =
        n.multiply(BigDecimal.valueOf(t.amountCents())).subtract(new BigDecimal(b.sum()));
    BigDecimal score = root.signum() == 0 ? null : excess.divide(root, mc);
    return new Figures(new BigDecimal(b.sum()).divide(n, mc), root.divide(n, mc), score);
  }
}
