package dev.tally.domain.transaction;

import java.util.Objects;

/**
 * A field's value as a decoder found it, before any rule is applied: absent, JSON {@code null}, a
 * string, an integer that fits in 64 bits, or something else (a fraction, an exponent, a huge
 * integer, a boolean, an object, an array). Keeping the raw shape lets the {@link
 * TransactionValidator} say precisely what was wrong, whatever format the decoder read.
 */
public sealed interface RawValue {

  /** The field did not occur. */
  static RawValue absent() {
    return Absent.INSTANCE;
  }

  /** The field was JSON {@code null}. */
  static RawValue nullValue() {
    return Null.INSTANCE;
  }

  /** The field was a string. */
  static RawValue text(String value) {
    return new Text(value);
  }

  /** The field was an integer that fits in a signed 64-bit long. */
  static RawValue integer(long value) {
    return new Int(value);
  }

  /**
   * The field held a value no rule accepts as such.
   *
   * @param kind what it was, for the message: "a number with a fraction", "an object", …
   * @param literal its text, possibly abbreviated; may be empty for structures
   */
  static RawValue other(String kind, String literal) {
    return new Other(kind, literal);
  }

  /** See {@link #absent()}. */
  enum Absent implements RawValue {
    INSTANCE
  }

  /** See {@link #nullValue()}. */
  enum Null implements RawValue {
    INSTANCE
  }

  /** See {@link #text(String)}. */
  record Text(String value) implements RawValue {
    public Text {
      Objects.requireNonNull(value, "value");
    }
  }

  /** See {@link #integer(long)}. */
  record Int(long value) implements RawValue {}

  /** See {@link #other(String, String)}. */
  record Other(String kind, String literal) implements RawValue {
    public Other {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(literal, "literal");
    }

    String describe() {
      return literal.isEmpty() ? kind : kind + " (" + FieldRules.abbreviate(literal) + ")";
    }
  }
}
