package dev.tally.domain.transaction;

import static dev.tally.domain.fixtures.RawTransactions.aRawTransaction;
import static dev.tally.domain.transaction.TransactionField.AMOUNT_CENTS;
import static dev.tally.domain.transaction.TransactionField.CURRENCY;
import static dev.tally.domain.transaction.TransactionField.EVENT_TIMESTAMP;
import static dev.tally.domain.transaction.TransactionField.TRANSACTION_ID;
import static dev.tally.domain.transaction.TransactionField.USER_ID;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.rejection.Rejection;
import dev.tally.domain.rejection.RejectionReason;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class TransactionValidatorTest {

  private static final long RECORD_TIME = Instant.parse("2026-11-29T12:00:00Z").toEpochMilli();

  private final TransactionValidator validator = TransactionValidator.withDefaults();

  /**
   * A record timestamp after every valid event time, for tests about event-time forms and ranges.
   */
  private static final long END_OF_9999 = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();

  private Transaction accepted(RawTransaction raw) {
    return accepted(raw, RECORD_TIME);
  }

  private Transaction accepted(RawTransaction raw, long recordTime) {
    ValidationResult result = validator.validate(raw, recordTime);
    assertThat(result).isInstanceOf(ValidationResult.Valid.class);
    return ((ValidationResult.Valid) result).transaction();
  }

  private Rejection rejected(RawTransaction raw) {
    return rejected(raw, RECORD_TIME);
  }

  private Rejection rejected(RawTransaction raw, long recordTime) {
    ValidationResult result = validator.validate(raw, recordTime);
    assertThat(result).isInstanceOf(ValidationResult.Invalid.class);
    return ((ValidationResult.Invalid) result).rejection();
  }

  @Test
  void acceptsAValidRecordAndKeepsEveryValue() {
    Transaction tx = accepted(aRawTransaction().build());

    assertThat(tx.transactionId()).isEqualTo("tx-1");
    assertThat(tx.userId()).isEqualTo("user-1");
    assertThat(tx.amountCents()).isEqualTo(1_250);
    assertThat(tx.currency()).isEqualTo("EUR");
    assertThat(tx.eventTime()).isEqualTo(Instant.parse("2026-11-29T10:15:30.123Z"));
  }

  @Nested
  class Identifiers {

    @ParameterizedTest
    @EnumSource(
        value = TransactionField.class,
        names = {"TRANSACTION_ID", "USER_ID"})
    void areStrippedOfSurroundingWhitespace(TransactionField field) {
      Transaction tx = accepted(aRawTransaction().withText(field, " \t abc \n").build());

      assertThat(field == TRANSACTION_ID ? tx.transactionId() : tx.userId()).isEqualTo("abc");
    }

    @ParameterizedTest
    @EnumSource(
        value = TransactionField.class,
        names = {"TRANSACTION_ID", "USER_ID"})
    void ofOneAndOf128CharactersAreAccepted(TransactionField field) {
      accepted(aRawTransaction().withText(field, "x").build());
      accepted(aRawTransaction().withText(field, "x".repeat(128)).build());
      // 128 code points that take 256 UTF-16 chars still count as 128 characters.
      accepted(aRawTransaction().withText(field, "😀".repeat(128)).build());
    }

    @ParameterizedTest
    @EnumSource(
        value = TransactionField.class,
        names = {"TRANSACTION_ID", "USER_ID"})
    void of129CharactersAfterStrippingAreInvalid(TransactionField field) {
      accepted(aRawTransaction().withText(field, "  " + "x".repeat(128) + "  ").build());

      Rejection rejection = rejected(aRawTransaction().withText(field, "x".repeat(129)).build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
      assertThat(rejection.message()).contains(field.jsonName(), "129", "128");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t\n", "\u2003"})
    void emptyOrBlankIsInvalid(String blank) {
      Rejection rejection = rejected(aRawTransaction().withText(USER_ID, blank).build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
      assertThat(rejection.message()).contains("user_id must not be empty or blank");
    }

    @Test
    void aNumberWhereAStringBelongsIsInvalid() {
      Rejection rejection =
          rejected(aRawTransaction().with(TRANSACTION_ID, RawValue.integer(42)).build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
      assertThat(rejection.message())
          .contains("transaction_id must be a string, got an integer (42)");
    }
  }

  @Nested
  class Amounts {

    @ParameterizedTest
    @ValueSource(longs = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE})
    void anySigned64BitIntegerIsAccepted(long amount) {
      assertThat(accepted(aRawTransaction().with(AMOUNT_CENTS, RawValue.integer(amount)).build()))
          .extracting(Transaction::amountCents)
          .isEqualTo(amount);
    }

    @Test
    void aStringIsInvalidEvenWhenItHoldsDigits() {
      Rejection rejection = rejected(aRawTransaction().withText(AMOUNT_CENTS, "1250").build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
      assertThat(rejection.message()).contains("amount_cents must be a JSON integer", "\"1250\"");
    }

    @ParameterizedTest
    @CsvSource({
      "a number with a fraction, 12.5",
      "a number with an exponent, 1e3",
      "an integer beyond the signed 64-bit range, 9223372036854775808",
      "a boolean, true",
      "an object, ''"
    })
    void anythingButAnIntegerIsInvalid(String kind, String literal) {
      Rejection rejection =
          rejected(aRawTransaction().with(AMOUNT_CENTS, RawValue.other(kind, literal)).build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
      assertThat(rejection.message()).contains("amount_cents", kind, literal);
    }
  }

  @Nested
  class Currencies {

    @ParameterizedTest
    @ValueSource(strings = {"USD", "EUR", "JPY", "CHF", "XAU"})
    void knownUpperCaseCodesAreAccepted(String code) {
      assertThat(accepted(aRawTransaction().withText(CURRENCY, code).build()).currency())
          .isEqualTo(code);
    }

    @Test
    void lowerCaseIsInvalidAndTheMessageSaysWhy() {
      Rejection rejection = rejected(aRawTransaction().withText(CURRENCY, "usd").build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
      assertThat(rejection.message()).contains("currency must be upper case");
    }

    @ParameterizedTest
    @ValueSource(strings = {"XYZ", "US", "USDD", "", " USD", "€"})
    void unknownCodesAreInvalid(String code) {
      Rejection rejection = rejected(aRawTransaction().withText(CURRENCY, code).build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
      assertThat(rejection.message()).contains("not an ISO 4217 code");
    }
  }

  @Nested
  class EventTimestampForms {

    @ParameterizedTest
    @CsvSource({
      "2026-11-29T10:15:30.123Z, 2026-11-29T10:15:30.123Z",
      "2026-11-29T10:15:30Z, 2026-11-29T10:15:30Z",
      "2026-11-29T11:15:30.123+01:00, 2026-11-29T10:15:30.123Z",
      "2026-11-29T05:45:30.123-04:30, 2026-11-29T10:15:30.123Z",
      "2026-11-29T10:15:30.5Z, 2026-11-29T10:15:30.500Z",
      "2026-11-29 10:15:30.123, 2026-11-29T10:15:30.123Z",
      "2026-11-29 10:15:30, 2026-11-29T10:15:30Z",
      "1969-12-31T23:59:59.999Z, 1969-12-31T23:59:59.999Z",
      "0001-01-01T00:00:00Z, 0001-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999Z, 9999-12-31T23:59:59.999Z",
      "2024-02-29T00:00:00Z, 2024-02-29T00:00:00Z"
    })
    void textFormsAreReadAsTheSameInstant(String text, Instant expected) {
      assertThat(
              accepted(aRawTransaction().withText(EVENT_TIMESTAMP, text).build(), END_OF_9999)
                  .eventTime())
          .isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({
      "2026-11-29T10:15:30.123456Z, 2026-11-29T10:15:30.123Z",
      "2026-11-29T10:15:30.123999999Z, 2026-11-29T10:15:30.123Z",
      "2026-11-29 10:15:30.1239, 2026-11-29T10:15:30.123Z",
      "1969-12-31T23:59:59.9999Z, 1969-12-31T23:59:59.999Z"
    })
    void subMillisecondInputIsTruncatedTowardsThePast(String text, Instant expected) {
      assertThat(accepted(aRawTransaction().withText(EVENT_TIMESTAMP, text).build()).eventTime())
          .isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1_764_411_330_123L, -1, -62_135_596_800_000L, 253_402_300_799_999L})
    void epochMillisecondsAsAJsonIntegerAreAccepted(long millis) {
      assertThat(
              accepted(
                      aRawTransaction().with(EVENT_TIMESTAMP, RawValue.integer(millis)).build(),
                      END_OF_9999)
                  .eventTime())
          .isEqualTo(Instant.ofEpochMilli(millis));
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "2026-11-29T10:15:30.123", // a local time names no instant
          "2026-11-29", // a date is no instant
          "2026-13-01T00:00:00Z",
          "2026-02-29T00:00:00Z", // not a leap year
          "2026-11-29T24:00:00Z",
          "2026-11-29T10:60:00Z",
          "2026-11-29T10:15:30+25:00",
          "2026/11/29 10:15:30",
          "1764411330123", // epoch millis must be a JSON integer, not a string
          "yesterday",
          ""
        })
    void otherTextIsInvalid(String text) {
      Rejection rejection = rejected(aRawTransaction().withText(EVENT_TIMESTAMP, text).build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
      assertThat(rejection.message()).contains("event_timestamp");
    }

    @ParameterizedTest
    @ValueSource(
        longs = {-62_135_596_800_001L, 253_402_300_800_000L, Long.MIN_VALUE, Long.MAX_VALUE})
    void epochMillisecondsOutsideTheYears1To9999AreInvalid(long millis) {
      Rejection rejection =
          rejected(aRawTransaction().with(EVENT_TIMESTAMP, RawValue.integer(millis)).build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
      assertThat(rejection.message()).contains("outside the years 0001..9999");
    }

    @Test
    void aFractionalNumberIsInvalid() {
      Rejection rejection =
          rejected(
              aRawTransaction()
                  .with(EVENT_TIMESTAMP, RawValue.other("a number with a fraction", "17.5"))
                  .build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.INVALID_FIELD);
    }
  }

  @Nested
  class FutureTimestamps {

    private RawTransaction eventAt(long millis) {
      return aRawTransaction().with(EVENT_TIMESTAMP, RawValue.integer(millis)).build();
    }

    @Test
    void exactlyTheAllowedSkewAfterTheRecordTimestampIsAccepted() {
      accepted(eventAt(RECORD_TIME + Duration.ofHours(1).toMillis()));
    }

    @Test
    void oneMillisecondMoreIsAFutureTimestamp() {
      Rejection rejection = rejected(eventAt(RECORD_TIME + Duration.ofHours(1).toMillis() + 1));

      assertThat(rejection.reason()).isEqualTo(RejectionReason.FUTURE_TIMESTAMP);
      assertThat(rejection.message()).contains("PT1H0.001S", "PT1H");
    }

    @Test
    void eventsFarInThePastAreNotJudgedHere() {
      accepted(eventAt(RECORD_TIME - Duration.ofDays(3650).toMillis()));
    }

    @Test
    void theSkewIsConfigurable() {
      TransactionValidator strict = new TransactionValidator(Duration.ofSeconds(1));

      assertThat(strict.validate(eventAt(RECORD_TIME + 1_000), RECORD_TIME))
          .isInstanceOf(ValidationResult.Valid.class);
      assertThat(strict.validate(eventAt(RECORD_TIME + 1_001), RECORD_TIME))
          .isInstanceOf(ValidationResult.Invalid.class);
    }

    @Test
    void aRecordWithoutTimestampCannotBeJudgedAndPasses() {
      assertThat(validator.validate(eventAt(Long.MAX_VALUE / 2_000_000), -1))
          .isInstanceOf(ValidationResult.Valid.class);
    }

    @Test
    void invalidFieldsTakePrecedence() {
      RawTransaction raw =
          aRawTransaction()
              .with(EVENT_TIMESTAMP, RawValue.integer(RECORD_TIME + Duration.ofDays(1).toMillis()))
              .withText(CURRENCY, "usd")
              .build();

      assertThat(rejected(raw).reason()).isEqualTo(RejectionReason.INVALID_FIELD);
    }
  }

  @Nested
  class MissingFields {

    @ParameterizedTest
    @EnumSource(TransactionField.class)
    void anAbsentFieldIsMissing(TransactionField field) {
      Rejection rejection = rejected(aRawTransaction().without(field).build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.MISSING_FIELD);
      assertThat(rejection.message()).isEqualTo(field.jsonName() + " is absent");
    }

    @ParameterizedTest
    @EnumSource(TransactionField.class)
    void aNullFieldIsMissing(TransactionField field) {
      Rejection rejection = rejected(aRawTransaction().with(field, RawValue.nullValue()).build());

      assertThat(rejection.reason()).isEqualTo(RejectionReason.MISSING_FIELD);
      assertThat(rejection.message()).isEqualTo(field.jsonName() + " is null");
    }

    @Test
    void missingTakesPrecedenceAndTheMessageNamesEveryProblem() {
      RawTransaction raw =
          aRawTransaction()
              .without(USER_ID)
              .withText(CURRENCY, "usd")
              .with(AMOUNT_CENTS, RawValue.nullValue())
              .build();

      Rejection rejection = rejected(raw);

      assertThat(rejection.reason()).isEqualTo(RejectionReason.MISSING_FIELD);
      assertThat(rejection.message())
          .isEqualTo(
              "user_id is absent; amount_cents is null; currency must be upper case: \"usd\"");
    }
  }

  @Test
  void hugeValuesAreAbbreviatedInMessages() {
    Rejection rejection =
        rejected(aRawTransaction().withText(CURRENCY, "X".repeat(2_000_000)).build());

    assertThat(rejection.message()).hasSizeLessThan(200).contains("2000000 chars");
  }
}
