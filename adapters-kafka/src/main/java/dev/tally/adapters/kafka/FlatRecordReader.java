package dev.tally.adapters.kafka;

import dev.tally.domain.transaction.RawTransaction;
import dev.tally.domain.transaction.RawValue;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The decoder's fast path: reads the shape nearly every producer writes, one flat JSON object of
 * Tally's fields whose values are plain strings or integers, straight from the bytes, without a
 * Jackson parser per record (its parser, {@code IOContext}, read contexts and text buffer were
 * about 1 KB of allocation per record).
 *
 * <p>It only ever accepts, never rejects: anything outside that shape makes it answer {@code null},
 * and {@link TransactionDecoder} then reads the value with Jackson, which stays the reference for
 * every verdict and message. Outside the shape are: any byte outside ASCII (so an accepted value is
 * valid UTF-8 without a byte order mark), an escape or a control character in a string, an unknown
 * or repeated field, a field name with an escape, any value other than a string or an integer
 * (null, booleans, fractions, exponents, structures), an integer with a leading zero or beyond the
 * signed 64-bit range, and anything Jackson would reject. What it accepts is a subset of RFC 8259
 * that Jackson reads into the very same {@link RawValue}s; {@code FlatRecordReaderPropertiesTest}
 * checks that on valid, near-valid and broken records.
 */
final class FlatRecordReader {

  /** The field names, indexed as the canonical order in which producers write them. */
  private static final byte[][] NAMES = {
    ascii("transaction_id"),
    ascii("user_id"),
    ascii("amount_cents"),
    ascii("currency"),
    ascii("event_timestamp")
  };

  /** "9223372036854775807": the digits of {@link Long#MAX_VALUE}, the most a long has. */
  private static final byte[] MAX_LONG_DIGITS = ascii(Long.toString(Long.MAX_VALUE));

  /** "9223372036854775808": the digits of {@link Long#MIN_VALUE}, as many. */
  private static final byte[] MIN_LONG_DIGITS = ascii(Long.toString(Long.MIN_VALUE).substring(1));

  private static final int LETTERS = 26;

  /**
   * The currency texts of three capital letters (the form of every ISO 4217 code), each made once
   * and shared, so that a record's currency is neither copied nor allocated. Filled as codes are
   * met: a race at worst makes one twice, and the texts are immutable (final fields all the way
   * down), so threads may share them without a lock.
   */
  private static final RawValue[] CODES = new RawValue[LETTERS * LETTERS * LETTERS];

  private FlatRecordReader() {}

  /**
   * The raw fields of {@code value} when it has the common shape, or {@code null} when the value
   * must be read by the general parser.
   *
   * <p>The whole value is checked before any field is made, so a value handed on to the general
   * parser has cost a scan and no allocation. Until then a field is its span: the offsets of its
   * first and past its last byte in one long, 0 while absent (no value starts at offset 0).
   */
  static RawTransaction read(byte[] value) {
    int n = value.length;
    long transactionId = 0;
    long userId = 0;
    long amountCents = 0;
    long currency = 0;
    long eventTimestamp = 0;
    int i = skipWhitespace(value, 0);
    if (i == n || value[i] != '{') {
      return null;
    }
    i = skipWhitespace(value, i + 1);
    if (i < n && value[i] == '}') {
      i++;
    } else {
      int seen = 0;
      int expected = 0;
      while (true) {
        if (i == n || value[i] != '"') {
          return null;
        }
        int field = fieldAt(value, i + 1, expected);
        if (field < 0 || (seen & (1 << field)) != 0) {
          return null; // an unknown field or a repeated one: the general parser decides
        }
        seen |= 1 << field;
        i = skipWhitespace(value, i + 2 + NAMES[field].length);
        if (i == n || value[i] != ':') {
          return null;
        }
        i = skipWhitespace(value, i + 1);
        if (i == n) {
          return null;
        }
        int start;
        int end;
        if (value[i] == '"') {
          start = i + 1;
          end = stringEnd(value, start);
          if (end < 0) {
            return null;
          }
          i = end + 1;
        } else {
          start = i;
          end = integerEnd(value, start);
          if (end < 0) {
            return null;
          }
          i = end;
        }
        long span = (long) start << 32 | end;
        switch (field) {
          case 0 -> transactionId = span;
          case 1 -> userId = span;
          case 2 -> amountCents = span;
          case 3 -> currency = span;
          default -> eventTimestamp = span;
        }
        expected = field + 1;
        i = skipWhitespace(value, i);
        if (i == n) {
          return null;
        }
        if (value[i] == '}') {
          i++;
          break;
        }
        if (value[i] != ',') {
          return null;
        }
        i = skipWhitespace(value, i + 1);
      }
    }
    if (skipWhitespace(value, i) != n) {
      return null;
    }
    return new RawTransaction(
        field(value, transactionId, false),
        field(value, userId, false),
        field(value, amountCents, false),
        field(value, currency, true),
        field(value, eventTimestamp, false));
  }

  /**
   * The raw value of a checked span: a string when a quote opens it (an integer starts after a
   * colon or whitespace), absent for 0.
   */
  private static RawValue field(byte[] value, long span, boolean isCurrency) {
    if (span == 0) {
      return RawValue.absent();
    }
    int start = (int) (span >>> 32);
    int end = (int) span;
    if (value[start - 1] != '"') {
      return RawValue.integer(integerValue(value, start, end));
    }
    return isCurrency ? code(value, start, end) : text(value, start, end);
  }

  /**
   * The index of the field whose name starts at {@code start} and is closed by a quote there, or
   * -1. The field after the previous one in the canonical order is tried first. A name equal to one
   * of the five is ASCII without escapes, so it cannot end anywhere but at that quote.
   */
  private static int fieldAt(byte[] value, int start, int expected) {
    if (expected < NAMES.length && nameAt(value, start, NAMES[expected])) {
      return expected;
    }
    for (int field = 0; field < NAMES.length; field++) {
      if (field != expected && nameAt(value, start, NAMES[field])) {
        return field;
      }
    }
    return -1;
  }

  private static boolean nameAt(byte[] value, int start, byte[] name) {
    int end = start + name.length;
    return end < value.length
        && value[end] == '"'
        && Arrays.equals(value, start, end, name, 0, name.length);
  }

  /**
   * The index of the quote closing the string whose content starts at {@code start}, or -1 when the
   * string is not closed or holds anything but printable ASCII: an escape, a control character
   * (which JSON forbids unescaped) or a byte of a multi-byte UTF-8 sequence.
   */
  private static int stringEnd(byte[] value, int start) {
    for (int i = start; i < value.length; i++) {
      byte b = value[i];
      if (b == '"') {
        return i;
      }
      if (b < 0x20 || b == '\\') { // bytes from 0x80 up are negative
        return -1;
      }
    }
    return -1;
  }

  /** The string between {@code start} and {@code end}, every byte of it printable ASCII. */
  private static RawValue text(byte[] value, int start, int end) {
    // ISO-8859-1 maps ASCII one to one: the string is a plain copy of the bytes.
    return RawValue.text(new String(value, start, end - start, StandardCharsets.ISO_8859_1));
  }

  /** As {@link #text}, but a code of three capital letters is the one shared text of it. */
  private static RawValue code(byte[] value, int start, int end) {
    if (end - start != 3) {
      return text(value, start, end);
    }
    int first = value[start] - 'A';
    int second = value[start + 1] - 'A';
    int third = value[start + 2] - 'A';
    if ((first | second | third) < 0 || first >= LETTERS || second >= LETTERS || third >= LETTERS) {
      return text(value, start, end);
    }
    int index = (first * LETTERS + second) * LETTERS + third;
    RawValue code = CODES[index];
    if (code == null) {
      code = text(value, start, end);
      CODES[index] = code;
    }
    return code;
  }

  /**
   * The end of the JSON integer starting at {@code start} ({@code -?(0|[1-9][0-9]*)}, RFC 8259 §6),
   * or -1 when there is none there or it does not fit in a signed 64-bit long. What follows it is
   * the caller's to check: a fraction or an exponent is not a separator.
   */
  private static int integerEnd(byte[] value, int start) {
    int n = value.length;
    int first = start < n && value[start] == '-' ? start + 1 : start;
    int i = first;
    while (i < n && value[i] >= '0' && value[i] <= '9') {
      i++;
    }
    int digits = i - first;
    if (digits == 0 || (digits > 1 && value[first] == '0')) {
      return -1;
    }
    if (digits > MAX_LONG_DIGITS.length) {
      return -1;
    }
    if (digits == MAX_LONG_DIGITS.length) {
      byte[] limit = first == start ? MAX_LONG_DIGITS : MIN_LONG_DIGITS;
      if (Arrays.compare(value, first, i, limit, 0, digits) > 0) {
        return -1;
      }
    }
    return i;
  }

  /**
   * The value of the integer {@link #integerEnd} found in range. It is summed as a negative number,
   * whose range holds {@link Long#MIN_VALUE} too.
   */
  private static long integerValue(byte[] value, int start, int end) {
    boolean negative = value[start] == '-';
    long sum = 0;
    for (int i = negative ? start + 1 : start; i < end; i++) {
      sum = sum * 10 - (value[i] - '0');
    }
    return negative ? sum : -sum;
  }

  /** Skips JSON's insignificant whitespace (RFC 8259 §2): space, tab, line feed, return. */
  private static int skipWhitespace(byte[] value, int start) {
    int i = start;
    while (i < value.length) {
      byte b = value[i];
      if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
        break;
      }
      i++;
    }
    return i;
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
