package dev.tally.domain.transaction;

import dev.tally.domain.rejection.Rejection;
import dev.tally.domain.rejection.RejectionReason;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Applies the rules of docs/behaviour.md "Input" to raw field values and returns either a {@link
 * Transaction} or a {@link Rejection} that names every problem it found.
 *
 * <p>Precedence when several rules break: {@link RejectionReason#MISSING_FIELD} over {@link
 * RejectionReason#INVALID_FIELD} over {@link RejectionReason#FUTURE_TIMESTAMP}. The message lists
 * every missing and invalid field, so one look at the dead-letter record tells the producer all
 * that is wrong.
 *
 * <p>{@code FUTURE_TIMESTAMP} is judged against the source record's own timestamp, never a clock,
 * so a replay of the same records decides the same way. A record without a source timestamp cannot
 * be judged and passes that rule.
 *
 * <p>Instances are immutable, thread-safe and serializable, so a stream operator can carry one.
 */
public final class TransactionValidator implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Default for how far an event may lie after its record's timestamp. */
  public static final Duration DEFAULT_MAX_FUTURE_SKEW = Duration.ofHours(1);

  private final Duration maxFutureSkew;
  private final long maxFutureSkewMillis;

  /**
   * @param maxFutureSkew how far {@code event_timestamp} may lie after the source record timestamp;
   *     not negative
   */
  public TransactionValidator(Duration maxFutureSkew) {
    Objects.requireNonNull(maxFutureSkew, "maxFutureSkew");
    if (maxFutureSkew.isNegative()) {
      throw new IllegalArgumentException("maxFutureSkew must not be negative: " + maxFutureSkew);
    }
    this.maxFutureSkew = maxFutureSkew;
    this.maxFutureSkewMillis = maxFutureSkew.toMillis();
  }

  /** A validator with the default skew of one hour. */
  public static TransactionValidator withDefaults() {
    return new TransactionValidator(DEFAULT_MAX_FUTURE_SKEW);
  }

  /** The configured maximum future skew. */
  public Duration maxFutureSkew() {
    return maxFutureSkew;
  }

  /**
   * Judges one record.
   *
   * @param raw the decoded field values
   * @param recordTimestampMillis the source record's timestamp in epoch milliseconds; negative when
   *     it has none
   */
  public ValidationResult validate(RawTransaction raw, long recordTimestampMillis) {
    Problems problems = new Problems();
    String transactionId =
        identifier(TransactionField.TRANSACTION_ID, raw.transactionId(), problems);
    String userId = identifier(TransactionField.USER_ID, raw.userId(), problems);
    long amountCents = amount(raw.amountCents(), problems);
    String currency = currency(raw.currency(), problems);
    long eventTimeMillis = eventTime(raw.eventTimestamp(), problems);
    if (problems.any()) {
      return new ValidationResult.Invalid(problems.toRejection());
    }
    if (recordTimestampMillis >= 0
        && eventTimeMillis - recordTimestampMillis > maxFutureSkewMillis) {
      return new ValidationResult.Invalid(
          new Rejection(
              RejectionReason.FUTURE_TIMESTAMP,
              "event_timestamp "
                  + Instant.ofEpochMilli(eventTimeMillis)
                  + " is "
                  + Duration.ofMillis(eventTimeMillis - recordTimestampMillis)
                  + " after the record timestamp "
                  + Instant.ofEpochMilli(recordTimestampMillis)
                  + ", more than the allowed "
                  + maxFutureSkew));
    }
    return new ValidationResult.Valid(
        new Transaction(
            transactionId, userId, amountCents, currency, Instant.ofEpochMilli(eventTimeMillis)));
  }

  private static String identifier(TransactionField field, RawValue raw, Problems problems) {
    if (raw instanceof RawValue.Text text) {
      String stripped = text.value().strip();
      String problem = FieldRules.checkIdentifier(field, stripped);
      if (problem != null) {
        problems.invalid(problem);
        return null;
      }
      return stripped;
    }
    expectation(field, "a string", raw, problems);
    return null;
  }

  private static long amount(RawValue raw, Problems problems) {
    if (raw instanceof RawValue.Int integer) {
      return integer.value();
    }
    expectation(
        TransactionField.AMOUNT_CENTS, "a JSON integer in the signed 64-bit range", raw, problems);
    return 0;
  }

  private static String currency(RawValue raw, Problems problems) {
    if (raw instanceof RawValue.Text text) {
      String problem = FieldRules.checkCurrency(text.value());
      if (problem != null) {
        problems.invalid(problem);
        return null;
      }
      return text.value();
    }
    expectation(TransactionField.CURRENCY, "a string", raw, problems);
    return null;
  }

  private static long eventTime(RawValue raw, Problems problems) {
    long millis;
    if (raw instanceof RawValue.Text text) {
      millis = EventTimestamps.parseMillis(text.value());
      if (millis == EventTimestamps.INVALID) {
        problems.invalid(
            "event_timestamp is neither an ISO-8601 instant with Z or an offset nor"
                + " 'yyyy-MM-dd HH:mm:ss[.SSS]': \""
                + FieldRules.abbreviate(text.value())
                + "\"");
        return 0;
      }
    } else if (raw instanceof RawValue.Int integer) {
      millis = integer.value();
    } else {
      expectation(
          TransactionField.EVENT_TIMESTAMP,
          "a timestamp string or epoch milliseconds as a JSON integer",
          raw,
          problems);
      return 0;
    }
    if (millis < FieldRules.MIN_EVENT_TIME.toEpochMilli()
        || millis > FieldRules.MAX_EVENT_TIME.toEpochMilli()) {
      problems.invalid("event_timestamp " + describe(raw) + " is outside the years 0001..9999");
      return 0;
    }
    return millis;
  }

  private static void expectation(
      TransactionField field, String expected, RawValue raw, Problems problems) {
    if (raw instanceof RawValue.Absent) {
      problems.missing(field.jsonName() + " is absent");
    } else if (raw instanceof RawValue.Null) {
      problems.missing(field.jsonName() + " is null");
    } else {
      problems.invalid(field.jsonName() + " must be " + expected + ", got " + describe(raw));
    }
  }

  private static String describe(RawValue raw) {
    if (raw instanceof RawValue.Text text) {
      return "a string (\"" + FieldRules.abbreviate(text.value()) + "\")";
    }
    if (raw instanceof RawValue.Int integer) {
      return "an integer (" + integer.value() + ")";
    }
    if (raw instanceof RawValue.Other other) {
      return other.describe();
    }
    return raw instanceof RawValue.Null ? "null" : "nothing";
  }

  /**
   * Collects problems only when there are some: the accepted path allocates nothing here but this
   * holder.
   */
  private static final class Problems {
    private StringBuilder missing;
    private StringBuilder invalid;

    void missing(String problem) {
      missing = append(missing, problem);
    }

    void invalid(String problem) {
      invalid = append(invalid, problem);
    }

    boolean any() {
      return missing != null || invalid != null;
    }

    Rejection toRejection() {
      if (missing == null) {
        return new Rejection(RejectionReason.INVALID_FIELD, invalid.toString());
      }
      String message = invalid == null ? missing.toString() : missing + "; " + invalid;
      return new Rejection(RejectionReason.MISSING_FIELD, message);
    }

    private static StringBuilder append(StringBuilder target, String problem) {
      return target == null ? new StringBuilder(problem) : target.append("; ").append(problem);
    }
  }
}
