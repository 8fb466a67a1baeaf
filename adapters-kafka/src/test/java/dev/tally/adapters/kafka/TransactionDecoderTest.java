package dev.tally.adapters.kafka;

import static dev.tally.domain.fixtures.TransactionJson.aTransactionJson;
import static dev.tally.domain.transaction.TransactionField.AMOUNT_CENTS;
import static dev.tally.domain.transaction.TransactionField.CURRENCY;
import static dev.tally.domain.transaction.TransactionField.EVENT_TIMESTAMP;
import static dev.tally.domain.transaction.TransactionField.TRANSACTION_ID;
import static dev.tally.domain.transaction.TransactionField.USER_ID;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.fixtures.TransactionJson;
import dev.tally.domain.fixtures.Transactions;
import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.transaction.TransactionField;
import dev.tally.domain.transaction.TransactionValidator;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class TransactionDecoderTest {

  private static final long RECORD_TIME = Instant.parse("2026-11-29T12:00:00Z").toEpochMilli();
  private static final byte[] KEY = "the-key".getBytes(StandardCharsets.UTF_8);

  private final TransactionDecoder decoder =
      new TransactionDecoder(
          TransactionValidator.withDefaults(), TransactionDecoder.DEFAULT_MAX_RECORD_BYTES);

  private static SourceRecord record(byte[] value) {
    return new SourceRecord("financial-transactions", 3, 42L, RECORD_TIME, KEY, value);
  }

  private DecodedRecord decode(byte[] value) {
    return decoder.decode(record(value));
  }

  private Transaction accepted(TransactionJson json) {
    DecodedRecord decoded = decode(json.toBytes());
    assertThat(decoded.rejected()).as("rejection of %s", json).isNull();
    return decoded.accepted().transaction();
  }

  private RejectedRecord rejected(byte[] value) {
    DecodedRecord decoded = decode(value);
    assertThat(decoded.accepted()).as("acceptance of %s", Arrays.toString(value)).isNull();
    return decoded.rejected();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  @Test
  void aValidRecordIsAcceptedWithItsSourceAttached() {
    Transaction expected =
        Transactions.aTransaction().user("alice").amount(-399).currency("USD").build();

    DecodedRecord decoded = decode(TransactionJson.of(expected).toBytes());

    assertThat(decoded.accepted().transaction()).isEqualTo(expected);
    assertThat(decoded.accepted().source())
        .isEqualTo(record(TransactionJson.of(expected).toBytes()));
  }

  @Test
  void unknownFieldsOfAnyShapeAreIgnored() {
    TransactionJson json =
        aTransactionJson()
            .raw("merchant", "{\"name\":\"Café\",\"tags\":[1,2,{\"x\":null}]}")
            .raw("score", "1.5e10")
            .raw("flag", "true")
            .raw("Amount_Cents", "\"not ours: names are exact\"");

    assertThat(accepted(json).amountCents()).isEqualTo(1_250);
  }

  @Test
  void escapedCharactersAreDecoded() {
    assertThat(accepted(aTransactionJson().raw(USER_ID, "\"caf\\u00e9 \\\"x\\\"\"")).userId())
        .isEqualTo("café \"x\"");
  }

  @Nested
  class SpecInputRules {

    @ParameterizedTest
    @CsvSource({
      "'\"2026-11-29T10:15:30.123Z\"', 2026-11-29T10:15:30.123Z",
      "'\"2026-11-29T11:15:30.123+01:00\"', 2026-11-29T10:15:30.123Z",
      "'\"2026-11-29T05:15:30.123-05:00\"', 2026-11-29T10:15:30.123Z",
      "'\"2026-11-29 10:15:30.123\"', 2026-11-29T10:15:30.123Z",
      "'\"2026-11-29T10:15:30.123987Z\"', 2026-11-29T10:15:30.123Z",
      "1795947330123, 2026-11-29T10:15:30.123Z",
      "-1, 1969-12-31T23:59:59.999Z"
    })
    void timestampsInEveryForm(String literal, Instant expected) {
      assertThat(accepted(aTransactionJson().raw(EVENT_TIMESTAMP, literal)).eventTime())
          .isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(
        strings = {"\"1764411330123\"", "1764411330123.0", "\"2026-11-29T10:15:30\"", "true"})
    void otherTimestampsAreInvalid(String literal) {
      assertThat(rejected(aTransactionJson().raw(EVENT_TIMESTAMP, literal).toBytes()).reason())
          .isEqualTo(RejectionReason.INVALID_FIELD);
    }

    @ParameterizedTest
    @EnumSource(
        value = TransactionField.class,
        names = {"TRANSACTION_ID", "USER_ID"})
    void identifierLengthBoundaries(TransactionField field) {
      accepted(aTransactionJson().text(field, "x".repeat(128)));
      accepted(aTransactionJson().text(field, " " + "x".repeat(128) + " "));
      assertThat(rejected(aTransactionJson().text(field, "x".repeat(129)).toBytes()).reason())
          .isEqualTo(RejectionReason.INVALID_FIELD);
      assertThat(rejected(aTransactionJson().text(field, "  ").toBytes()).reason())
          .isEqualTo(RejectionReason.INVALID_FIELD);
    }

    @ParameterizedTest
    @ValueSource(strings = {"9223372036854775807", "-9223372036854775808", "0", "-1"})
    void amountsAcrossTheWholeSigned64BitRange(String literal) {
      assertThat(accepted(aTransactionJson().raw(AMOUNT_CENTS, literal)).amountCents())
          .isEqualTo(Long.parseLong(literal));
    }

    @ParameterizedTest
    @CsvSource({
      "'\"usd\"', upper case",
      "'\"ABC\"', not an ISO 4217 code",
      "840, must be a string"
    })
    void currencies(String literal, String messagePart) {
      RejectedRecord rejection = rejected(aTransactionJson().raw(CURRENCY, literal).toBytes());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
      assertThat(rejection.message()).contains(messagePart);
    }

    @ParameterizedTest
    @EnumSource(TransactionField.class)
    void missingAndNullFields(TransactionField field) {
      assertThat(rejected(aTransactionJson().without(field).toBytes()).message())
          .isEqualTo(field.jsonName() + " is absent");
      assertThat(rejected(aTransactionJson().raw(field, "null").toBytes()).reason())
          .isEqualTo(RejectionReason.MISSING_FIELD);
    }

    @Test
    void futureTimestampIsJudgedAgainstTheKafkaRecordTimestamp() {
      accepted(aTransactionJson().raw(EVENT_TIMESTAMP, Long.toString(RECORD_TIME + 3_600_000)));
      RejectedRecord rejection =
          rejected(
              aTransactionJson()
                  .raw(EVENT_TIMESTAMP, Long.toString(RECORD_TIME + 3_600_001))
                  .toBytes());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.FUTURE_TIMESTAMP);
    }
  }

  /**
   * Whatever an unknown field holds is ignored, up to the record size limit: the parser's own
   * limits (number and name length, nesting depth, string length) must not turn valid input into a
   * rejection.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("largeUnknownFields")
  void unknownFieldsAreIgnoredWhateverTheirSizeUpToTheRecordLimit(String name, byte[] value) {
    TransactionDecoder roomy =
        new TransactionDecoder(TransactionValidator.withDefaults(), 48 * 1024 * 1024);

    DecodedRecord decoded = roomy.decode(record(value));

    assertThat(decoded.rejected()).as("rejection of %s", name).isNull();
    assertThat(decoded.accepted().transaction())
        .usingRecursiveComparison()
        .ignoringFields("transactionId")
        .isEqualTo(accepted(aTransactionJson()));
  }

  static Stream<Arguments> largeUnknownFields() {
    int levels = 400_000;
    return Stream.of(
        Arguments.of(
            "a 5,000-digit number", aTransactionJson().raw("note", "1".repeat(5_000)).toBytes()),
        Arguments.of(
            "a 2,000-digit fraction",
            aTransactionJson().raw("note", "0." + "5".repeat(2_000)).toBytes()),
        Arguments.of(
            "a 100,000-character field name",
            aTransactionJson().raw("n".repeat(100_000), "1").toBytes()),
        Arguments.of(
            "400,000 levels of nesting",
            aTransactionJson().raw("deep", "[".repeat(levels) + "]".repeat(levels)).toBytes()),
        Arguments.of(
            "a 21,000,000-character string",
            aTransactionJson().raw("blob", "\"" + "x".repeat(21_000_000) + "\"").toBytes()));
  }

  /** At least 25 hostile inputs, each must end as the right rejection and none as an exception. */
  static Stream<Arguments> hostileInputs() {
    byte[] valid = aTransactionJson().toBytes();
    byte[] twoMiB = new byte[2 * 1024 * 1024];
    Arrays.fill(twoMiB, (byte) ' ');
    twoMiB[0] = '{';
    twoMiB[twoMiB.length - 1] = '}';
    return Stream.of(
        hostile(
            "truncated JSON", Arrays.copyOf(valid, valid.length / 2), RejectionReason.MALFORMED),
        hostile("an array", utf8("[" + aTransactionJson() + "]"), RejectionReason.MALFORMED),
        hostile("a bare string", utf8("\"tx-1\""), RejectionReason.MALFORMED),
        hostile("a bare number", utf8("42"), RejectionReason.MALFORMED),
        hostile("the JSON literal null", utf8("null"), RejectionReason.MALFORMED),
        hostile("a bare boolean", utf8("true"), RejectionReason.MALFORMED),
        hostile(
            "an object where a string belongs",
            aTransactionJson().raw(USER_ID, "{\"id\":\"u1\"}").toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "an array where a string belongs",
            aTransactionJson().raw(TRANSACTION_ID, "[\"t1\"]").toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "a fraction",
            aTransactionJson().raw(AMOUNT_CENTS, "12.5").toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "an integral fraction",
            aTransactionJson().raw(AMOUNT_CENTS, "12.0").toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "an exponent",
            aTransactionJson().raw(AMOUNT_CENTS, "1e3").toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "beyond 64 bits",
            aTransactionJson().raw(AMOUNT_CENTS, "9223372036854775808").toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "below 64 bits",
            aTransactionJson().raw(AMOUNT_CENTS, "-9223372036854775809").toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "a 400-digit integer",
            aTransactionJson().raw(AMOUNT_CENTS, "9".repeat(400)).toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "NaN",
            aTransactionJson().raw(AMOUNT_CENTS, "NaN").toBytes(),
            RejectionReason.MALFORMED),
        hostile(
            "Infinity",
            aTransactionJson().raw(AMOUNT_CENTS, "-Infinity").toBytes(),
            RejectionReason.MALFORMED),
        hostile(
            "a leading zero",
            aTransactionJson().raw(AMOUNT_CENTS, "0123").toBytes(),
            RejectionReason.MALFORMED),
        hostile(
            "a string amount",
            aTransactionJson().raw(AMOUNT_CENTS, "\"12\"").toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "a duplicate key",
            utf8(aTransactionJson().toString().replace("}", ",\"amount_cents\":999999}")),
            RejectionReason.MALFORMED),
        hostile(
            "a byte order mark",
            concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, valid),
            RejectionReason.MALFORMED),
        hostile(
            "invalid UTF-8 in a field",
            withBytes(aTransactionJson().toString(), "user-1", new byte[] {(byte) 0xC3, 0x28}),
            RejectionReason.MALFORMED),
        hostile(
            "invalid UTF-8 in an unknown field",
            withBytes(
                aTransactionJson().raw("note", "\"NOTE\"").toString(),
                "NOTE",
                new byte[] {(byte) 0xFF}),
            RejectionReason.MALFORMED),
        hostile(
            "an overlong encoding",
            withBytes(
                aTransactionJson().toString(), "user-1", new byte[] {(byte) 0xC0, (byte) 0xAF}),
            RejectionReason.MALFORMED),
        hostile(
            "an encoded surrogate",
            withBytes(
                aTransactionJson().toString(),
                "user-1",
                new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}),
            RejectionReason.MALFORMED),
        hostile(
            "a truncated multi-byte sequence",
            concat(Arrays.copyOf(valid, valid.length - 1), new byte[] {(byte) 0xE2, (byte) 0x82}),
            RejectionReason.MALFORMED),
        hostile("an empty value", new byte[0], RejectionReason.MALFORMED),
        hostile("a null value (tombstone)", null, RejectionReason.MALFORMED),
        hostile("a 2 MiB value", twoMiB, RejectionReason.MALFORMED),
        hostile("whitespace only", utf8("   \n "), RejectionReason.MALFORMED),
        hostile("trailing garbage", utf8(aTransactionJson() + " x"), RejectionReason.MALFORMED),
        hostile(
            "two objects",
            utf8(aTransactionJson().toString() + aTransactionJson()),
            RejectionReason.MALFORMED),
        hostile(
            "single quotes",
            utf8(aTransactionJson().toString().replace('"', '\'')),
            RejectionReason.MALFORMED),
        hostile("a comment", utf8("/* hi */" + aTransactionJson()), RejectionReason.MALFORMED),
        hostile(
            "an unescaped control character",
            utf8(aTransactionJson().toString().replace("user-1", "user\u00011")),
            RejectionReason.MALFORMED),
        hostile(
            "a 1,001-digit integer",
            aTransactionJson().raw(AMOUNT_CENTS, "9".repeat(1_001)).toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "a 500,000-digit negative integer",
            aTransactionJson().raw(AMOUNT_CENTS, "-" + "7".repeat(500_000)).toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "a boolean timestamp",
            aTransactionJson().raw(EVENT_TIMESTAMP, "false").toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "a float timestamp",
            aTransactionJson().raw(EVENT_TIMESTAMP, "1.7644113e12").toBytes(),
            RejectionReason.INVALID_FIELD),
        hostile(
            "field names in another case",
            utf8(aTransactionJson().toString().replace("currency", "Currency")),
            RejectionReason.MISSING_FIELD),
        hostile("an empty object", utf8("{}"), RejectionReason.MISSING_FIELD),
        hostile(
            "an unclosed object", utf8("{\"transaction_id\":\"t\""), RejectionReason.MALFORMED));
  }

  private static Arguments hostile(String name, byte[] value, RejectionReason expected) {
    return Arguments.of(name, value, expected);
  }

  /** {@code json} with the first occurrence of {@code marker} replaced by raw bytes. */
  private static byte[] withBytes(String json, String marker, byte[] replacement) {
    int at = json.indexOf(marker);
    return concat(
        utf8(json.substring(0, at)), replacement, utf8(json.substring(at + marker.length())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileInputs")
  void hostileInputsEndAsTheRightRejectionWithTheOriginalBytes(
      String name, byte[] value, RejectionReason expected) {
    DecodedRecord decoded = decode(value);

    assertThat(decoded.accepted()).as(name).isNull();
    RejectedRecord rejection = decoded.rejected();
    assertThat(rejection.reason()).as(name + ": " + rejection.message()).isEqualTo(expected);
    assertThat(rejection.message()).isNotBlank().hasSizeLessThan(1_000);
    assertThat(rejection.source().value()).isSameAs(value);
    assertThat(rejection.source().key()).isSameAs(KEY);
    assertThat(rejection.source())
        .extracting(
            SourceRecord::topic,
            SourceRecord::partition,
            SourceRecord::offset,
            SourceRecord::timestampMillis)
        .containsExactly("financial-transactions", 3, 42L, RECORD_TIME);
  }

  @Test
  void thereAreAtLeast25HostileInputs() {
    assertThat(hostileInputs()).hasSizeGreaterThanOrEqualTo(25);
  }

  @Test
  void messagesSayWhatWasWrong() {
    assertThat(rejected(new byte[0]).message()).isEqualTo("the value is empty");
    assertThat(rejected(utf8("[1]")).message())
        .isEqualTo("the value is not a JSON object but an array");
    assertThat(
            rejected(utf8(aTransactionJson().toString().replace("}", ",\"user_id\":\"b\"}")))
                .message())
        .isEqualTo("the field user_id occurs more than once");
    assertThat(rejected(aTransactionJson().raw(AMOUNT_CENTS, "12.5").toBytes()).message())
        .isEqualTo(
            "amount_cents must be a JSON integer in the signed 64-bit range, got a number with a fraction or"
                + " an exponent (12.5)");
  }

  @Test
  void aSmallerConfiguredLimitRejectsLargerValues() {
    TransactionDecoder small = new TransactionDecoder(TransactionValidator.withDefaults(), 64);
    byte[] value = aTransactionJson().raw("pad", "\"" + "p".repeat(100) + "\"").toBytes();

    DecodedRecord decoded = small.decode(record(value));

    assertThat(decoded.rejected().reason()).isEqualTo(RejectionReason.MALFORMED);
    assertThat(decoded.rejected().message()).contains("more than the maximum of 64");
  }
}
