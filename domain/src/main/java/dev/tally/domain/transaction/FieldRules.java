package dev.tally.domain.transaction;

import java.time.Instant;
import java.util.Currency;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The field rules of SPEC "Input", shared by the {@link Transaction} constructor (which throws) and
 * the {@link TransactionValidator} (which reports). Each check returns {@code null} when the value
 * is fine, else a message.
 */
final class FieldRules {

  /** Longest id accepted, in Unicode code points, after stripping surrounding whitespace. */
  static final int MAX_IDENTIFIER_LENGTH = 128;

  /**
   * Event times are limited to the years 0001..9999: the range ISO-8601 writes without a sign, that
   * Iceberg and Parquet timestamps round-trip, and in which window arithmetic cannot overflow.
   */
  static final Instant MIN_EVENT_TIME = Instant.parse("0001-01-01T00:00:00Z");

  static final Instant MAX_EVENT_TIME = Instant.parse("9999-12-31T23:59:59.999Z");

  /**
   * Looked up once: {@link Currency#getInstance} per record would cost a lock-free map lookup plus
   * exceptions.
   */
  private static final Set<String> CURRENCY_CODES =
      Currency.getAvailableCurrencies().stream()
          .map(Currency::getCurrencyCode)
          .collect(Collectors.toUnmodifiableSet());

  private FieldRules() {}

  static String checkIdentifier(TransactionField field, String value) {
    if (value == null) {
      return field.jsonName() + " is missing";
    }
    int length = value.codePointCount(0, value.length());
    if (length == 0 || value.isBlank()) {
      return field.jsonName() + " must not be empty or blank";
    }
    if (length > MAX_IDENTIFIER_LENGTH) {
      return field.jsonName()
          + " is "
          + length
          + " characters long, more than the maximum of "
          + MAX_IDENTIFIER_LENGTH;
    }
    if (!value.equals(value.strip())) {
      return field.jsonName() + " must not have surrounding whitespace";
    }
    return null;
  }

  static String checkCurrency(String value) {
    if (value == null) {
      return "currency is missing";
    }
    if (!CURRENCY_CODES.contains(value)) {
      if (CURRENCY_CODES.contains(value.toUpperCase(java.util.Locale.ROOT))) {
        return "currency must be upper case: \"" + abbreviate(value) + "\"";
      }
      return "currency is not an ISO 4217 code known to java.util.Currency: \""
          + abbreviate(value)
          + "\"";
    }
    return null;
  }

  static String checkEventTime(Instant value) {
    if (value == null) {
      return "event_timestamp is missing";
    }
    if (value.isBefore(MIN_EVENT_TIME) || value.isAfter(MAX_EVENT_TIME)) {
      return "event_timestamp " + value + " is outside the years 0001..9999";
    }
    if (value.getNano() % 1_000_000 != 0) {
      return "event_timestamp " + value + " has sub-millisecond precision";
    }
    return null;
  }

  static String firstProblem(String... problems) {
    for (String problem : problems) {
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  /** Keeps messages readable and bounded when a hostile value is megabytes long. */
  static String abbreviate(String value) {
    int max = 64;
    if (value.length() <= max) {
      return value;
    }
    int cut = Character.isHighSurrogate(value.charAt(max - 1)) ? max - 1 : max;
    return value.substring(0, cut) + "…(" + value.length() + " chars)";
  }
}
