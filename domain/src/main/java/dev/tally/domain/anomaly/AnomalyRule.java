package dev.tally.domain.anomaly;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Objects;

/**
 * The anomaly rule of docs/behaviour.md "Anomalies": a transaction of amount {@code a} is anomalous
 * when its baseline holds at least {@code minBaseline} transactions and {@code a > mean + k·σ} (σ
 * the population standard deviation), decided in integers only: with {@code n, S, Q} the count, sum
 * and sum of squares of the baseline and {@code k = K/100},
 *
 * <pre>  n·a − S > 0  and  (100·(n·a − S))² > K²·(n·Q − S²)</pre>
 *
 * <p>Both sides are exact {@link BigInteger}s: no rounding and no overflow, whatever the amounts.
 *
 * @param kHundredths {@code K}: the threshold k in hundredths, not negative
 * @param minBaseline the fewest baseline transactions a judgement needs, at least 1
 */
public record AnomalyRule(long kHundredths, int minBaseline) implements Serializable {

  private static final long serialVersionUID = 1L;

  private static final BigInteger HUNDRED = BigInteger.valueOf(100);

  public AnomalyRule {
    if (kHundredths < 0) {
      throw new IllegalArgumentException("k must not be negative: " + kHundredths + "/100");
    }
    if (minBaseline < 1) {
      throw new IllegalArgumentException("the minimum baseline must be at least 1: " + minBaseline);
    }
  }

  /**
   * The rule with threshold {@code k}, a decimal with at most two fraction digits.
   *
   * @throws IllegalArgumentException when k is negative, has more than two fraction digits or is
   *     too large to count in hundredths as a {@code long}
   */
  public static AnomalyRule of(BigDecimal k, int minBaseline) {
    Objects.requireNonNull(k, "k");
    BigDecimal hundredths = k.movePointRight(2);
    if (hundredths.stripTrailingZeros().scale() > 0) {
      throw new IllegalArgumentException("k must have at most 2 fraction digits: " + k);
    }
    try {
      return new AnomalyRule(hundredths.longValueExact(), minBaseline);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("k is too large: " + k, e);
    }
  }

  /** The threshold k as a decimal, e.g. {@code 4} or {@code 2.5}. */
  public BigDecimal k() {
    BigDecimal k = BigDecimal.valueOf(kHundredths, 2).stripTrailingZeros();
    return k.scale() < 0 ? k.setScale(0) : k;
  }

  /**
   * Judges a transaction of {@code amountCents} against its baseline.
   *
   * @return {@link AnomalyVerdict.NotJudged} for an amount of 0 or less (a refund is never judged),
   *     {@link AnomalyVerdict.TooFewBaseline}, {@link AnomalyVerdict.Normal} or {@link
   *     AnomalyVerdict.Anomalous}
   */
  public AnomalyVerdict judge(long amountCents, Baseline baseline) {
    if (amountCents <= 0) {
      return AnomalyVerdict.NOT_JUDGED;
    }
    if (baseline.count() < minBaseline) {
      return new AnomalyVerdict.TooFewBaseline(baseline.count(), minBaseline);
    }
    BigInteger n = BigInteger.valueOf(baseline.count());
    BigInteger excess = n.multiply(BigInteger.valueOf(amountCents)).subtract(baseline.sum());
    if (excess.signum() <= 0) {
      return new AnomalyVerdict.Normal(baseline);
    }
    BigInteger left = excess.multiply(HUNDRED).pow(2);
    BigInteger right = BigInteger.valueOf(kHundredths).pow(2).multiply(baseline.spread());
    return left.compareTo(right) > 0
        ? new AnomalyVerdict.Anomalous(amountCents, baseline)
        : new AnomalyVerdict.Normal(baseline);
  }
}
