package dev.tally.domain.anomaly;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.Objects;

/**
 * The exact count, sum and sum of squares of a baseline's amounts (docs/behaviour.md "Anomalies"):
 * the totals of the hourly buckets it spans. Sums are {@link BigInteger}s: a sum of squares of
 * amounts near {@code Long.MAX_VALUE} needs far more than 64 bits.
 *
 * @param count how many transactions
 * @param sum the sum of their amounts
 * @param sumOfSquares the sum of the squares of their amounts
 */
public record Baseline(long count, BigInteger sum, BigInteger sumOfSquares) {

  /** No transactions. */
  public static final Baseline EMPTY = new Baseline(0, BigInteger.ZERO, BigInteger.ZERO);

  private static final MathContext PRECISION = MathContext.DECIMAL128;

  public Baseline {
    Objects.requireNonNull(sum, "sum");
    Objects.requireNonNull(sumOfSquares, "sumOfSquares");
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative: " + count);
    }
  }

  /** These totals with a bucket's added. */
  public Baseline plus(HourBucket bucket) {
    return new Baseline(
        Math.addExact(count, bucket.count()),
        sum.add(bucket.sum()),
        sumOfSquares.add(bucket.sumOfSquares()));
  }

  /** These totals with a bucket's taken out; the bucket must be part of them. */
  public Baseline minus(HourBucket bucket) {
    return new Baseline(
        Math.subtractExact(count, bucket.count()),
        sum.subtract(bucket.sum()),
        sumOfSquares.subtract(bucket.sumOfSquares()));
  }

  /** These totals with one amount added. */
  public Baseline plus(long amountCents) {
    BigInteger amount = BigInteger.valueOf(amountCents);
    return new Baseline(
        Math.addExact(count, 1), sum.add(amount), sumOfSquares.add(amount.multiply(amount)));
  }

  /** {@code n·Q − S²}: n² times the population variance, exact, never negative. */
  public BigInteger spread() {
    return BigInteger.valueOf(count).multiply(sumOfSquares).subtract(sum.multiply(sum));
  }

  /** The mean amount, for reports (34 significant digits); the rule itself never divides. */
  public BigDecimal mean() {
    requireSome();
    return new BigDecimal(sum).divide(BigDecimal.valueOf(count), PRECISION);
  }

  /** The population standard deviation, for reports (34 significant digits). */
  public BigDecimal standardDeviation() {
    requireSome();
    return new BigDecimal(spread()).sqrt(PRECISION).divide(BigDecimal.valueOf(count), PRECISION);
  }

  /**
   * How many standard deviations {@code amountCents} lies above the mean, {@code (a − mean)/σ} =
   * {@code (n·a − S)/√(n·Q − S²)}; {@code null} when σ is 0.
   */
  public BigDecimal score(long amountCents) {
    requireSome();
    BigInteger spread = spread();
    if (spread.signum() == 0) {
      return null;
    }
    BigInteger excess =
        BigInteger.valueOf(count).multiply(BigInteger.valueOf(amountCents)).subtract(sum);
    return new BigDecimal(excess).divide(new BigDecimal(spread).sqrt(PRECISION), PRECISION);
  }

  private void requireSome() {
    if (count == 0) {
      throw new IllegalStateException("an empty baseline has no mean");
    }
  }
}
