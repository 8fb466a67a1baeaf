package dev.tally.domain.spending;

import java.io.Serializable;

/**
 * The running total of one key in one window: the exact sum of amounts and the number of
 * transactions counted.
 *
 * <p>Immutable. {@link #add} and {@link #merge} never wrap: when a result would leave the signed
 * 64-bit range they return an {@link Overflow} saying so and leave the operands untouched, so the
 * caller can reject the offending record and keep the previous total. {@code merge} is commutative
 * and associative wherever it does not overflow, and {@link #EMPTY} is its identity, so partial
 * aggregates may be combined in any order.
 *
 * @param totalSpentCents exact sum of the counted amounts, in minor units
 * @param transactionCount number of transactions counted, not negative
 */
public record SpendingAggregate(long totalSpentCents, long transactionCount)
    implements Addition, Serializable {

  /** Nothing counted yet: the identity of {@link #merge}. */
  public static final SpendingAggregate EMPTY = new SpendingAggregate(0, 0);

  public SpendingAggregate {
    if (transactionCount < 0) {
      throw new IllegalArgumentException(
          "transactionCount must not be negative: " + transactionCount);
    }
    if (transactionCount == 0 && totalSpentCents != 0) {
      throw new IllegalArgumentException(
          "an aggregate of no transactions must total 0, not " + totalSpentCents);
    }
  }

  /** This aggregate with one more transaction of {@code amountCents} counted, or the overflow. */
  public Addition add(long amountCents) {
    return add(totalSpentCents, transactionCount, amountCents);
  }

  /**
   * {@link #add} on an aggregate given by its parts, so that a caller holding them (an {@link
   * OpenWindow}) need not build the aggregate first: one allocation less per counted transaction.
   */
  static Addition add(long totalSpentCents, long transactionCount, long amountCents) {
    long total = totalSpentCents + amountCents;
    // Overflow iff both operands have the same sign and the result's sign differs (Hacker's Delight
    // 2-13).
    if (((totalSpentCents ^ total) & (amountCents ^ total)) < 0) {
      return new Overflow(
          "adding "
              + amountCents
              + " to the total "
              + totalSpentCents
              + " leaves the signed 64-bit range");
    }
    if (transactionCount == Long.MAX_VALUE) {
      return new Overflow("transaction count would exceed " + Long.MAX_VALUE);
    }
    return new SpendingAggregate(total, transactionCount + 1);
  }

  /** The aggregate of both operands' transactions together, or the overflow. */
  public Addition merge(SpendingAggregate other) {
    long total = totalSpentCents + other.totalSpentCents;
    if (((totalSpentCents ^ total) & (other.totalSpentCents ^ total)) < 0) {
      return new Overflow(
          "merging totals "
              + totalSpentCents
              + " and "
              + other.totalSpentCents
              + " leaves the signed 64-bit range");
    }
    long count = transactionCount + other.transactionCount;
    if (count < 0) {
      return new Overflow(
          "merging counts " + transactionCount + " and " + other.transactionCount + " overflows");
    }
    return new SpendingAggregate(total, count);
  }

  /** Whether no transaction was counted. */
  public boolean isEmpty() {
    return transactionCount == 0;
  }
}
