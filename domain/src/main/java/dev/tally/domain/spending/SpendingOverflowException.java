package dev.tally.domain.spending;

/**
 * An exact sum or count left the signed 64-bit range. SPEC "Aggregation" makes overflow an error,
 * never a wrap.
 */
public final class SpendingOverflowException extends ArithmeticException {

  private static final long serialVersionUID = 1L;

  SpendingOverflowException(String message) {
    super(message);
  }
}
