package dev.tally.it.anomaly;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The semantics of {@code examples/sql/anomalies.sql}, which differ from the contract's rule where
 * a Flink SQL {@code OVER} window cannot say what the contract says (docs/sql.md), computed by
 * brute force exactly as Flink evaluates the script, so that the script's table can be checked row
 * for row:
 *
 * <ul>
 *   <li>the window of T at time t holds its key's positive transactions with event time in {@code
 *       [t − 7 d, t]}: T itself, every other one of the same millisecond, and the earlier ones of
 *       T's own hour; the script subtracts T alone from the window's count, sum and sum of squares;
 *   <li>count, sum and sum of squares are {@code BIGINT} ({@code long}: they would wrap, not fail);
 *   <li>mean, variance and standard deviation are {@code DOUBLE}, in the script's order of
 *       operations: {@code mean = s / n}, {@code variance = q / n − mean·mean} (cut to 0 when
 *       rounding makes it negative), and T is anomalous when {@code n ≥ 20} and {@code a > mean +
 *       4·stddev};
 *   <li>accepted: the first record of each (user, transaction id), late ones included (the script's
 *       {@code OVER} operator drops a row only behind its own key's last fired row, and each late
 *       record of a dataset is its key's only one).
 * </ul>
 */
public final class SqlAnomalyOracle {

  /** The script's {@code INTERVAL '7' DAY}. */
  public static final long WINDOW_MILLIS = Duration.ofDays(7).toMillis();

  /** The script's minimum baseline size. */
  public static final int MIN_BASELINE = 20;

  /** The script's k. */
  public static final int K = 4;

  /**
   * The decision for one positive transaction, on its window minus itself.
   *
   * @param count {@code n}, the window's rows but T
   * @param sum {@code s}
   * @param sumOfSquares {@code q}
   * @param exact the same window's count, sum and sum of squares in exact integers, to tell what
   *     {@code BIGINT} and {@code DOUBLE} change from what the window alone changes
   */
  public record Verdict(
      RawTransaction transaction,
      long count,
      long sum,
      long sumOfSquares,
      double mean,
      double stddev,
      boolean anomalous,
      SpecAnomalyOracle.Baseline exact) {

    /** The row the script writes for it. */
    public Anomaly row() {
      RawTransaction t = transaction;
      Double score = stddev > 0 ? ((double) t.amountCents() - mean) / stddev : null;
      return Anomaly.of(t, count, mean, stddev, score);
    }
  }

  private SqlAnomalyOracle() {}

  /** A verdict for every accepted transaction with a positive amount. */
  public static Map<TransactionKey, Verdict> verdicts(List<RawTransaction> records) {
    Map<TransactionKey, Verdict> verdicts = new TreeMap<>();
    for (List<RawTransaction> rows :
        Baselines.positiveByKey(Baselines.firstOfEachId(records)).values()) {
      for (RawTransaction t : rows) {
        verdicts.put(t.id(), verdict(rows, t));
      }
    }
    return verdicts;
  }

  /** The rows the script's table must hold. */
  public static Map<TransactionKey, Anomaly> anomalies(List<RawTransaction> records) {
    Map<TransactionKey, Anomaly> rows = new TreeMap<>();
    for (Verdict v : verdicts(records).values()) {
      if (v.anomalous()) {
        rows.put(v.transaction().id(), v.row());
      }
    }
    return rows;
  }

  /** The key's positive transactions in {@code [t − 7 d, t]}, T subtracted. */
  private static Verdict verdict(List<RawTransaction> keyRows, RawTransaction t) {
    long time = t.eventMillis();
    long count = 0;
    long sum = 0;
    long sumOfSquares = 0;
    SpecAnomalyOracle.Baseline exact = SpecAnomalyOracle.Baseline.EMPTY;
    for (RawTransaction r : keyRows) {
      if (r.eventMillis() >= time - WINDOW_MILLIS && r.eventMillis() <= time) {
        long a = r.amountCents();
        count++;
        sum += a;
        sumOfSquares += a * a;
        if (r != t) {
          exact = exact.plus(a);
        }
      }
    }
    long a = t.amountCents();
    long n = count - 1;
    long s = sum - a;
    long q = sumOfSquares - a * a;
    double mean = (double) s / n;
    double variance = (double) q / n - mean * mean;
    double stddev = variance > 0 ? Math.sqrt(variance) : 0;
    boolean anomalous = n >= MIN_BASELINE && (double) a > mean + K * stddev;
    return new Verdict(t, n, s, q, mean, stddev, anomalous, exact);
  }
}
