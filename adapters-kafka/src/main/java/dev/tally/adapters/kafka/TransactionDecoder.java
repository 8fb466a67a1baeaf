package dev.tally.adapters.kafka;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.Rejection;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.RawTransaction;
import dev.tally.domain.transaction.RawValue;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.TransactionValidator;
import dev.tally.domain.transaction.ValidationResult;
import java.io.IOException;
import java.io.Serializable;

/**
 * Decodes one Kafka record value (docs/behaviour.md "Input") into an accepted transaction or a
 * rejection. The common shape (a flat object of Tally's fields holding plain ASCII strings and
 * integers) is read straight from the bytes by {@link FlatRecordReader}; every other value with
 * Jackson's streaming parser (no tree, no data binding, one pass), which is the reference for what
 * the fast path reads. The field rules themselves are the domain's {@link TransactionValidator};
 * this class only turns bytes into raw field values.
 *
 * <p>Decoding never throws. Every failure, including an unexpected one, becomes a {@link
 * RejectedRecord} carrying the original bytes, so nothing is lost and the job never restarts
 * because of a record's content.
 *
 * <p>Strictness, beyond what the validator checks: the value must be valid UTF-8 without a byte
 * order mark (RFC 8259 §8.1), one JSON object and nothing after it, without a repeated Tally field
 * (which of two amounts would be meant?). Unknown fields are skipped, whatever they hold.
 */
final class TransactionDecoder implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Default for the largest value accepted, in bytes. */
  static final int DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;

  /**
   * Shared by all instances: a JsonFactory is thread-safe, and its symbol table makes the five
   * field names cheap to match.
   *
   * <p>Jackson's own read limits (1,000-digit numbers, 50,000-character names, 500 levels of
   * nesting, 20 MB strings) are lifted: the record size limit, checked before parsing, already
   * bounds every one of them, and with them a valid record could be rejected as {@code MALFORMED}
   * for what an unknown field holds, or a 1,001-digit amount for its length rather than its range.
   * Skipping a deep structure is iterative in Jackson, so depth costs heap (a small context object
   * per level), never stack.
   */
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(Integer.MAX_VALUE)
                  .maxNumberLength(Integer.MAX_VALUE)
                  .maxNameLength(Integer.MAX_VALUE)
                  .maxStringLength(Integer.MAX_VALUE)
                  .build())
          .build();

  /** "-9223372036854775808": the longest text of a signed 64-bit integer. */
  private static final int MAX_LONG_TEXT = 20;

  private static final int TRANSACTION_ID = 0;
  private static final int USER_ID = 1;
  private static final int AMOUNT_CENTS = 2;
  private static final int CURRENCY = 3;
  private static final int EVENT_TIMESTAMP = 4;

  private final TransactionValidator validator;
  private final int maxRecordBytes;

  TransactionDecoder(TransactionValidator validator, int maxRecordBytes) {
    if (maxRecordBytes <= 0) {
      throw new IllegalArgumentException("maxRecordBytes must be positive: " + maxRecordBytes);
    }
    this.validator = validator;
    this.maxRecordBytes = maxRecordBytes;
  }

  /** Decodes one record; never throws. */
  DecodedRecord decode(SourceRecord source) {
    return decode(source, true);
  }

  /**
   * Decodes one record as {@link #decode} does, but always with Jackson: the reference that the
   * fast path ({@link FlatRecordReader}) must match on every value, for its tests and benchmark.
   */
  DecodedRecord decodeWithJackson(SourceRecord source) {
    return decode(source, false);
  }

  private DecodedRecord decode(SourceRecord source, boolean fastPath) {
    try {
      byte[] value = source.value();
      Rejection malformed = checkSize(value);
      if (malformed != null) {
        return DecodedRecord.reject(RejectedRecord.of(malformed, source));
      }
      // A value the fast path reads is ASCII: valid UTF-8 without a byte order mark, so the
      // encoding checks are needed only for the values Jackson reads.
      RawTransaction raw = fastPath ? FlatRecordReader.read(value) : null;
      if (raw == null) {
        malformed = checkEncoding(value);
        if (malformed != null) {
          return DecodedRecord.reject(RejectedRecord.of(malformed, source));
        }
        ParsedFields parsed = parse(value);
        if (parsed.malformed != null) {
          return DecodedRecord.reject(RejectedRecord.of(parsed.malformed, source));
        }
        raw = parsed.toRaw();
      }
      ValidationResult result = validator.validate(raw, source.timestampMillis());
      if (result instanceof ValidationResult.Valid valid) {
        return DecodedRecord.accept(new SourcedTransaction(valid.transaction(), source));
      }
      return DecodedRecord.reject(
          RejectedRecord.of(((ValidationResult.Invalid) result).rejection(), source));
    } catch (RuntimeException unexpected) {
      // A bug or an input no rule foresaw: keep the record, say what happened, never fail the job.
      return DecodedRecord.reject(
          RejectedRecord.of(
              malformed(
                  "could not be decoded: "
                      + unexpected.getClass().getName()
                      + ": "
                      + unexpected.getMessage()),
              source));
    }
  }

  private Rejection checkSize(byte[] value) {
    if (value == null) {
      return malformed("the record has no value (a tombstone)");
    }
    if (value.length == 0) {
      return malformed("the value is empty");
    }
    if (value.length > maxRecordBytes) {
      return malformed(
          "the value is " + value.length + " bytes, more than the maximum of " + maxRecordBytes);
    }
    return null;
  }

  private static Rejection checkEncoding(byte[] value) {
    if (value.length >= 3
        && (value[0] & 0xFF) == 0xEF
        && (value[1] & 0xFF) == 0xBB
        && (value[2] & 0xFF) == 0xBF) {
      return malformed(
          "the value starts with a UTF-8 byte order mark, which JSON text must not have");
    }
    int invalid = Utf8.firstInvalidByte(value);
    if (invalid >= 0) {
      return malformed("the value is not valid UTF-8 (at byte " + invalid + ")");
    }
    return null;
  }

  private static ParsedFields parse(byte[] value) {
    ParsedFields fields = new ParsedFields();
    try (JsonParser parser = JSON.createParser(value)) {
      JsonToken first = parser.nextToken();
      if (first != JsonToken.START_OBJECT) {
        fields.malformed = malformed("the value is not a JSON object but " + describe(first));
        return fields;
      }
      JsonToken token;
      while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
        int field = fieldIndex(parser.currentName());
        JsonToken valueToken = parser.nextToken();
        if (field < 0) {
          parser.skipChildren();
          continue;
        }
        if (fields.values[field] != null) {
          fields.malformed =
              malformed("the field " + parser.currentName() + " occurs more than once");
          return fields;
        }
        fields.values[field] = readValue(parser, valueToken);
      }
      if (token != JsonToken.END_OBJECT) {
        fields.malformed = malformed("the JSON object is not closed");
        return fields;
      }
      JsonToken trailing = parser.nextToken();
      if (trailing != null) {
        fields.malformed = malformed("there is more after the JSON object: " + describe(trailing));
      }
    } catch (JsonProcessingException e) {
      fields.malformed =
          malformed(
              "the value is not valid JSON: "
                  + e.getOriginalMessage()
                  + (e.getLocation() == null
                      ? ""
                      : " (at byte " + e.getLocation().getByteOffset() + ")"));
    } catch (IOException e) {
      fields.malformed = malformed("the value could not be read: " + e.getMessage());
    }
    return fields;
  }

  private static int fieldIndex(String name) {
    return switch (name) {
      case "transaction_id" -> TRANSACTION_ID;
      case "user_id" -> USER_ID;
      case "amount_cents" -> AMOUNT_CENTS;
      case "currency" -> CURRENCY;
      case "event_timestamp" -> EVENT_TIMESTAMP;
      default -> -1;
    };
  }

  private static RawValue readValue(JsonParser parser, JsonToken token) throws IOException {
    return switch (token) {
      case VALUE_STRING -> RawValue.text(parser.getText());
      // By length first: a number too long for a long is out of range without converting it, which
      // for a BigInteger of a million digits would cost seconds.
      case VALUE_NUMBER_INT ->
          parser.getTextLength() > MAX_LONG_TEXT
                  || parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
              ? RawValue.other("an integer beyond the signed 64-bit range", parser.getText())
              : RawValue.integer(parser.getLongValue());
      case VALUE_NUMBER_FLOAT ->
          RawValue.other("a number with a fraction or an exponent", parser.getText());
      case VALUE_TRUE, VALUE_FALSE -> RawValue.other("a boolean", parser.getText());
      case VALUE_NULL -> RawValue.nullValue();
      case START_OBJECT -> {
        parser.skipChildren();
        yield RawValue.other("an object", "");
      }
      case START_ARRAY -> {
        parser.skipChildren();
        yield RawValue.other("an array", "");
      }
      default -> RawValue.other("an unexpected JSON token " + token, "");
    };
  }

  private static String describe(JsonToken token) {
    if (token == null) {
      return "nothing";
    }
    return switch (token) {
      case START_ARRAY -> "an array";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      case START_OBJECT -> "another object";
      default -> token.asString() == null ? token.name() : token.asString();
    };
  }

  private static Rejection malformed(String message) {
    return new Rejection(RejectionReason.MALFORMED, message);
  }

  /** The five raw values, or the reason the value could not be read. */
  private static final class ParsedFields {
    final RawValue[] values = new RawValue[5];
    Rejection malformed;

    RawTransaction toRaw() {
      return new RawTransaction(
          orAbsent(values[TRANSACTION_ID]),
          orAbsent(values[USER_ID]),
          orAbsent(values[AMOUNT_CENTS]),
          orAbsent(values[CURRENCY]),
          orAbsent(values[EVENT_TIMESTAMP]));
    }

    private static RawValue orAbsent(RawValue value) {
      return value == null ? RawValue.absent() : value;
    }
  }
}
