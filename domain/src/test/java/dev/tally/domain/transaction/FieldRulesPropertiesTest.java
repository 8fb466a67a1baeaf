package dev.tally.domain.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Currency;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The fast paths of {@link FieldRules} must give the verdict and message of the plain rules they
 * replace (kept here as the reference) on every input, valid or not.
 */
class FieldRulesPropertiesTest {

  private static final Set<String> CODES =
      Currency.getAvailableCurrencies().stream()
          .map(Currency::getCurrencyCode)
          .collect(Collectors.toUnmodifiableSet());

  @Property(tries = 5_000)
  void identifiersAreJudgedAsByThePlainRules(@ForAll("identifiers") String value) {
    for (TransactionField field :
        new TransactionField[] {TransactionField.TRANSACTION_ID, TransactionField.USER_ID}) {
      assertThat(FieldRules.checkIdentifier(field, value))
          .as("%s %s", field, escaped(value))
          .isEqualTo(referenceIdentifier(field, value));
    }
  }

  @Property(tries = 5_000)
  void currenciesAreJudgedAsByThePlainRules(@ForAll("currencies") String value) {
    assertThat(FieldRules.checkCurrency(value))
        .as(escaped(value))
        .isEqualTo(referenceCurrency(value));
  }

  @Property(tries = 1)
  void everyKnownCodeAndItsLowerCaseAreJudgedAsByThePlainRules() {
    for (String code : CODES) {
      assertThat(FieldRules.checkCurrency(code)).as(code).isNull();
      String lower = code.toLowerCase(Locale.ROOT);
      assertThat(FieldRules.checkCurrency(lower)).as(lower).isEqualTo(referenceCurrency(lower));
    }
  }

  @Provide
  Arbitrary<String> identifiers() {
    Arbitrary<Character> interesting =
        Arbitraries.of(
            ' ', '\t', '\n', '\u000b', '\u001c', '\u00a0', '\u2007', '\u2028', '\u3000', '\u200b',
            'a', 'Z', '0', '-', '\u00e9', '\u4e2d', '\ud83d', '\ude00');
    Arbitrary<String> mixed =
        Arbitraries.strings()
            .withChars(' ', '\t', '\u3000', 'x', '\u00e9')
            .withCharRange('\ud800', '\udfff')
            .ofMinLength(0)
            .ofMaxLength(140);
    Arbitrary<String> fromInteresting =
        interesting.list().ofMinSize(0).ofMaxSize(10).map(FieldRulesPropertiesTest::join);
    Arbitrary<String> longOnes =
        Arbitraries.strings()
            .withChars('a', ' ', '\ud83d', '\ude00')
            .ofMinLength(120)
            .ofMaxLength(300);
    Arbitrary<String> pairs =
        Arbitraries.integers()
            .between(60, 140)
            .map(n -> "\ud83d\ude00".repeat(n)); // 120..280 units, 60..140 code points
    return Arbitraries.oneOf(mixed, fromInteresting, longOnes, pairs, Arbitraries.strings());
  }

  @Provide
  Arbitrary<String> currencies() {
    Arbitrary<String> letters =
        Arbitraries.strings()
            .withCharRange('A', 'Z')
            .withCharRange('a', 'z')
            .withChars('@', '[', '`', '{', '\u00c9', '\u0130', '\u0131', '\u017f', ' ')
            .ofMinLength(0)
            .ofMaxLength(5);
    return Arbitraries.oneOf(letters, Arbitraries.of(CODES), Arbitraries.strings());
  }

  private static String join(java.util.List<Character> chars) {
    StringBuilder text = new StringBuilder();
    chars.forEach(text::append);
    return text.toString();
  }

  private static String escaped(String value) {
    return value
        .chars()
        .mapToObj(
            c -> c < 0x20 || c > 0x7e ? String.format("\\u%04x", c) : String.valueOf((char) c))
        .collect(Collectors.joining());
  }

  /**
   * {@link FieldRules#checkIdentifier} written plainly: the reference its fast path must agree
   * with.
   */
  private static String referenceIdentifier(TransactionField field, String value) {
    if (value == null) {
      return field.jsonName() + " is missing";
    }
    int length = value.codePointCount(0, value.length());
    if (length == 0 || value.isBlank()) {
      return field.jsonName() + " must not be empty or blank";
    }
    if (length > FieldRules.MAX_IDENTIFIER_LENGTH) {
      return field.jsonName()
          + " is "
          + length
          + " characters long, more than the maximum of "
          + FieldRules.MAX_IDENTIFIER_LENGTH;
    }
    if (!value.equals(value.strip())) {
      return field.jsonName() + " must not have surrounding whitespace";
    }
    return null;
  }

  /**
   * {@link FieldRules#checkCurrency} written plainly: the reference its fast path must agree with.
   */
  private static String referenceCurrency(String value) {
    if (value == null) {
      return "currency is missing";
    }
    if (!CODES.contains(value)) {
      if (CODES.contains(value.toUpperCase(Locale.ROOT))) {
        return "currency must be upper case: \"" + FieldRules.abbreviate(value) + "\"";
      }
      return "currency is not an ISO 4217 code known to java.util.Currency: \""
          + FieldRules.abbreviate(value)
          + "\"";
    }
    return null;
  }
}
