package dev.tally.runtime.topology;

/**
 * The running aggregate of one open (currency, window) of a user, and whether that exact value has
 * been emitted already (so early firing and the final firing do not write the same row twice).
 *
 * @param currency the ISO 4217 code
 * @param windowStart the window start, epoch milliseconds
 * @param totalSpentCents exact running sum
 * @param transactionCount running count
 * @param emitted whether this value was emitted
 */
public record OpenWindow(
    String currency,
    long windowStart,
    long totalSpentCents,
    long transactionCount,
    boolean emitted) {

  OpenWindow markEmitted() {
    return emitted
        ? this
        : new OpenWindow(currency, windowStart, totalSpentCents, transactionCount, true);
  }

  boolean is(String otherCurrency, long otherStart) {
    return windowStart == otherStart && currency.equals(otherCurrency);
  }
}
