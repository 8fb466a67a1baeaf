package dev.tally.domain.anomaly;

import java.math.BigInteger;
import java.util.Objects;

/**
 * One hour of one key's baseline: the exact count, sum and sum of squares of the positive amounts
 * accepted in that hour (docs/behaviour.md "Anomalies"). The hour is where the bucket is kept.
 *
 * @param count how many transactions, at least 1
 * @param sum the sum of their amounts
 * @param sumOfSquares the sum of the squares of their amounts
 */
public record HourBucket(long count, BigInteger sum, BigInteger sumOfSquares) {

  public HourBucket {
    Objects.requireNonNull(sum, "sum");
    Objects.requireNonNull(sumOfSquares, "sumOfSquares");
    if (count < 1) {
      throw new IllegalArgumentException("a bucket holds at least one transaction: " + count);
    }
  }

  /** The bucket of one transaction. */
  public static HourBucket of(long amountCents) {
    BigInteger amount = BigInteger.valueOf(amountCents);
    return new HourBucket(1, amount, amount.multiply(amount));
  }

  /** This bucket with one more transaction. */
  public HourBucket plus(long amountCents) {
    BigInteger amount = BigInteger.valueOf(amountCents);
    return new HourBucket(
        Math.addExact(count, 1), sum.add(amount), sumOfSquares.add(amount.multiply(amount)));
  }
}
