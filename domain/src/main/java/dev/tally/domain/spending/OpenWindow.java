package dev.tally.domain.spending;

/**
 * The running aggregate of one open (currency, window) of a {@link UserLedger}, whether that exact
 * value has been emitted already (so early firing and the final firing do not write the same row
 * twice), and whether any row of the window was emitted before (so the first one can be written as
 * a plain insert: {@link WindowedSpending#firstForKey()}).
 *
 * @param currency the ISO 4217 code
 * @param windowStart the window start, epoch milliseconds
 * @param totalSpentCents exact running sum
 * @param transactionCount running count
 * @param emitted whether this value was emitted
 * @param everEmitted whether a row of this window was emitted, with this value or an earlier one
 */
public record OpenWindow(
    String currency,
    long windowStart,
    long totalSpentCents,
    long transactionCount,
    boolean emitted,
    boolean everEmitted) {

  /**
   * A value that was emitted was, of course, ever emitted (also in state written without the {@code
   * everEmitted} field, which reads it as false).
   */
  public OpenWindow {
    everEmitted = everEmitted || emitted;
  }

  /** The running total and count. */
  public SpendingAggregate aggregate() {
    return new SpendingAggregate(totalSpentCents, transactionCount);
  }

  OpenWindow markEmitted() {
    return emitted
        ? this
        : new OpenWindow(currency, windowStart, totalSpentCents, transactionCount, true, true);
  }

  /** This window with a new running value, emitted now or not. */
  OpenWindow withValue(SpendingAggregate value, boolean emittedNow) {
    return new OpenWindow(
        currency,
        windowStart,
        value.totalSpentCents(),
        value.transactionCount(),
        emittedNow,
        everEmitted);
  }

  boolean is(String otherCurrency, long otherStart) {
    return windowStart == otherStart && currency.equals(otherCurrency);
  }
}
