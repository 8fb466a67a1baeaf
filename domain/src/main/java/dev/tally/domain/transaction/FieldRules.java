package dev.tally.domain.transaction;

import java.time.Instant;
import java.util.Currency;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The field rules of docs/behaviour.md "Input", shared by the {@link Transaction} constructor
 * (which throws) and the {@link TransactionValidator} (which reports). Each check returns {@code
 * null} when the value is fine, else a message.
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

  /**
   * The known codes of three upper-case ASCII letters (all of them, in practice), indexed by {@link
   * #threeLetterIndex}: one array read per record instead of hashing the string and probing the
   * set. Codes of any other shape stay in {@link #CURRENCY_CODES} only.
   */
  private static final boolean[] KNOWN_THREE_LETTER_CODES = new boolean[26 * 26 * 26];

  static {
    for (String code : CURRENCY_CODES) {
      int index = threeLetterIndex(code);
      if (index >= 0) {
        KNOWN_THREE_LETTER_CODES[index] = true;
      }
    }
  }

  private FieldRules() {}

  static String checkIdentifier(TransactionField field, String value) {
    if (value == null) {
      return field.jsonName() + " is missing";
    }
    // Fast path, the common case: 1..128 UTF-16 units (so 1..128 code points) whose first and last
    // are not whitespace. Then the value is not blank, and strip() would remove nothing: no
    // supplementary code point is whitespace, and a lone surrogate is not either, so judging the
    // first and last char is judging the first and last code point. Anything else takes the full
    // checks below, which decide the message.
    int units = value.length();
    if (units != 0
        && units <= MAX_IDENTIFIER_LENGTH
        && !Character.isWhitespace(value.charAt(0))
        && !Character.isWhitespace(value.charAt(units - 1))) {
      return null;
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
    if (!isKnownCurrencyCode(value)) {
      if (isKnownCurrencyCode(value.toUpperCase(java.util.Locale.ROOT))) {
        return "currency must be upper case: \"" + abbreviate(value) + "\"";
      }
      return "currency is not an ISO 4217 code known to java.util.Currency: \""
          + abbreviate(value)
          + "\"";
    }
    return null;
  }

  /** Whether {@code code} is a currency code known to {@link Currency}, exactly as spelt. */
  private static boolean isKnownCurrencyCode(String code) {
    int index = threeLetterIndex(code);
    return index >= 0 ? KNOWN_THREE_LETTER_CODES[index] : CURRENCY_CODES.contains(code);
  }

  /**
   * The index of a code of exactly three letters {@code A..Z} in {@link #KNOWN_THREE_LETTER_CODES},
   * or -1 for any other string.
   */
  private static int threeLetterIndex(String code) {
    if (code.length() != 3) {
      return -1;
    }
    int a = code.charAt(0) - 'A';
    int b = code.charAt(1) - 'A';
    int c = code.charAt(2) - 'A';
    if (a < 0 || a >= 26 || b < 0 || b >= 26 || c < 0 || c >= 26) {
      return -1;
    }
    return (a * 26 + b) * 26 + c;
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
