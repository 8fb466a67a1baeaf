package dev.tally.it.anomaly;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Where the SQL form's verdicts differ from the contract's, each difference with the one of the
 * documented causes (docs/sql.md) that is present in its data, and those with none: a difference
 * without a cause would be a bug in one of the two, not semantics.
 */
public final class OracleDifferences {

  /** The documented causes of a different verdict. */
  public enum Cause {
    /**
     * The SQL window holds other transactions of T's own hour (earlier ones, or ones of the same
     * millisecond), which the contract's baseline never does.
     */
    OWN_HOUR,
    /**
     * The SQL window ends 7 × 24 h before T itself, so it misses the start of the 168th hour before
     * T's, which the contract's baseline holds.
     */
    START_OF_THE_FIRST_HOUR,
    /**
     * The windows' transactions decide alike in exact integers; {@code BIGINT} sums (which wrap)
     * and {@code DOUBLE} mean and variance decide otherwise: only where a sum of squares is beyond
     * the 2^53 a {@code DOUBLE} holds exactly.
     */
    ARITHMETIC
  }

  private static final BigInteger EXACT_IN_A_DOUBLE = BigInteger.ONE.shiftLeft(53);

  private final Map<Cause, List<TransactionKey>> explained = new EnumMap<>(Cause.class);
  private final List<TransactionKey> unexplained = new ArrayList<>();

  private OracleDifferences() {}

  /** Compares both oracles' verdicts over {@code records}. */
  public static OracleDifferences of(List<RawTransaction> records) {
    OracleDifferences d = new OracleDifferences();
    SpecAnomalyOracle spec = SpecAnomalyOracle.defaults();
    Map<TransactionKey, SpecAnomalyOracle.Verdict> specVerdicts = spec.verdicts(records);
    Map<TransactionKey, SqlAnomalyOracle.Verdict> sqlVerdicts = SqlAnomalyOracle.verdicts(records);
    Map<String, List<RawTransaction>> byKey =
        Baselines.positiveByKey(Baselines.firstOfEachId(records));
    Map<TransactionKey, RawTransaction> all = new HashMap<>();
    byKey.values().forEach(rows -> rows.forEach(r -> all.put(r.id(), r)));
    for (TransactionKey id : new TreeSet<>(all.keySet())) {
      SpecAnomalyOracle.Verdict s = specVerdicts.get(id);
      SqlAnomalyOracle.Verdict q = sqlVerdicts.get(id);
      boolean specSays = s != null && s.anomalous();
      if (specSays == q.anomalous()) {
        continue;
      }
      RawTransaction t = all.get(id);
      Cause cause = cause(spec, t, s, q, byKey.get(t.key()));
      if (cause == null) {
        d.unexplained.add(id);
      } else {
        d.explained.computeIfAbsent(cause, c -> new ArrayList<>()).add(id);
      }
    }
    return d;
  }

  /** The differences with a cause present in their data. */
  public Map<Cause, List<TransactionKey>> explained() {
    return explained;
  }

  /** The differences with none: must be empty. */
  public List<TransactionKey> unexplained() {
    return unexplained;
  }

  /** How many verdicts differ. */
  public int count() {
    return unexplained.size() + explained.values().stream().mapToInt(List::size).sum();
  }

  @Override
  public String toString() {
    Map<Cause, Integer> counts = new EnumMap<>(Cause.class);
    explained.forEach((c, ids) -> counts.put(c, ids.size()));
    return count() + " verdicts differ: " + counts + ", unexplained " + unexplained;
  }

  private static Cause cause(
      SpecAnomalyOracle spec,
      RawTransaction t,
      SpecAnomalyOracle.Verdict s,
      SqlAnomalyOracle.Verdict q,
      List<RawTransaction> keyRows) {
    if (spec.anomalous(t.amountCents(), q.exact()) != q.anomalous()) {
      return q.exact().sumOfSquares().compareTo(EXACT_IN_A_DOUBLE) >= 0 ? Cause.ARITHMETIC : null;
    }
    if (s == null || s.baseline().equals(q.exact())) {
      return null; // the same transactions, and exact integers decide alike: no cause
    }
    long time = t.eventMillis();
    long hour = Baselines.hourOf(time);
    boolean ownHour =
        keyRows.stream()
            .anyMatch(r -> r != t && r.eventMillis() >= hour && r.eventMillis() <= time);
    if (ownHour) {
      return Cause.OWN_HOUR;
    }
    long firstHour = hour - SpecAnomalyOracle.BASELINE_HOURS * Baselines.HOUR_MILLIS;
    boolean startOfFirstHour =
        keyRows.stream()
            .anyMatch(
                r ->
                    r.eventMillis() >= firstHour
                        && r.eventMillis() < time - SqlAnomalyOracle.WINDOW_MILLIS);
    return startOfFirstHour ? Cause.START_OF_THE_FIRST_HOUR : null;
  }
}
