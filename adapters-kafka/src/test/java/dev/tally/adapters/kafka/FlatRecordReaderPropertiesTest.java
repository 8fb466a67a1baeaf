package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.TransactionValidator;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * The decoder's fast path ({@link FlatRecordReader}) must give every record the verdict the Jackson
 * path gives it ({@link TransactionDecoder#decodeWithJackson}, the reference): accepted with an
 * equal transaction, or rejected with the same reason and message. Records are valid, near-valid
 * (each part drawn from values the rules treat differently) and broken (valid records with bytes
 * changed, removed, duplicated or inserted).
 */
class FlatRecordReaderPropertiesTest {

  private static final long RECORD_TIME = Instant.parse("2026-11-29T12:00:00Z").toEpochMilli();

  /** The bench's record: the shape producers write, which the fast path must read. */
  private static final String BENCH_RECORD =
      "{\"transaction_id\":\"tx-4711\",\"user_id\":\"user-42\",\"amount_cents\":-399,"
          + "\"currency\":\"EUR\",\"event_timestamp\":\"2026-11-29 10:15:30.123\"}";

  private static final String[] BASE_RECORDS = {
    BENCH_RECORD,
    "{\"transaction_id\":\"tx-1\",\"user_id\":\"u\",\"amount_cents\":0,"
        + "\"currency\":\"USD\",\"event_timestamp\":1764410130123}",
    "{ \"event_timestamp\" : \"2026-11-29T10:15:30Z\", \"currency\" : \"GBP\","
        + " \"amount_cents\" : 9223372036854775807, \"user_id\" : \" u 1 \","
        + " \"transaction_id\" : \"a\" }",
  };

  /** Bytes a mutation puts in: JSON's structure, number and literal characters, and non-ASCII. */
  private static final byte[] INTERESTING_BYTES = {
    '{',
    '}',
    '[',
    ']',
    '"',
    ':',
    ',',
    '\\',
    ' ',
    '\t',
    '\n',
    '\r',
    '\f',
    '0',
    '1',
    '9',
    '-',
    '+',
    '.',
    'e',
    'E',
    'a',
    'n',
    't',
    'f',
    'u',
    'l',
    'x',
    '/',
    '#',
    0x00,
    0x1f,
    0x7f,
    (byte) 0x80,
    (byte) 0xc3,
    (byte) 0xa9,
    (byte) 0xef,
    (byte) 0xbb,
    (byte) 0xbf,
    (byte) 0xff
  };

  private static final String[] NAMES = {
    "transaction_id", "user_id", "amount_cents", "currency", "event_timestamp"
  };

  private final TransactionDecoder decoder =
      new TransactionDecoder(
          TransactionValidator.withDefaults(), TransactionDecoder.DEFAULT_MAX_RECORD_BYTES);

  @Example
  void theCommonShapeTakesTheFastPath() {
    // Without this the comparisons below could pass with a fast path that never reads anything.
    for (String record : BASE_RECORDS) {
      assertThat(FlatRecordReader.read(utf8(record))).as(record).isNotNull();
      assertThat(decoder.decode(source(utf8(record), RECORD_TIME)).isAccepted())
          .as(record)
          .isTrue();
    }
  }

  @Example
  void everyByteOfTheBaseRecordsChangedRemovedOrDuplicatedGetsTheReferenceVerdict() {
    int compared = 0;
    for (String record : BASE_RECORDS) {
      byte[] base = utf8(record);
      for (int at = 0; at <= base.length; at++) {
        if (at < base.length) {
          assertSameVerdict(remove(base, at));
          assertSameVerdict(insert(base, at, base[at]));
          assertSameVerdict(truncate(base, at));
          compared += 3;
        }
        for (byte b : INTERESTING_BYTES) {
          if (at < base.length) {
            assertSameVerdict(replace(base, at, b));
            compared++;
          }
          assertSameVerdict(insert(base, at, b));
          compared++;
        }
      }
    }
    assertThat(compared).isGreaterThan(10_000);
  }

  @Property(tries = 3_000)
  void generatedRecordsGetTheReferenceVerdict(
      @ForAll("records") String record, @ForAll("recordTimes") long recordTime) {
    byte[] value = utf8(record);
    collect(assertSameVerdict(value, recordTime), value);
  }

  @Property(tries = 3_000)
  void mutatedRecordsGetTheReferenceVerdict(
      @ForAll("records") String record,
      @ForAll("mutations") List<Mutation> mutations,
      @ForAll("recordTimes") long recordTime) {
    byte[] value = utf8(record);
    for (Mutation mutation : mutations) {
      value = mutation.apply(value);
    }
    collect(assertSameVerdict(value, recordTime), value);
  }

  /** Which path read the value and what the verdict was, checked to cover both paths. */
  private static void collect(DecodedRecord decoded, byte[] value) {
    Statistics.label("verdict")
        .collect(decoded.isAccepted() ? "accepted" : decoded.rejected().reason().name());
    Statistics.label("path").collect(FlatRecordReader.read(value) != null ? "fast" : "Jackson");
    Statistics.label("path")
        .coverage(
            coverage -> {
              coverage.check("fast").percentage(p -> p >= 10);
              coverage.check("Jackson").percentage(p -> p >= 10);
            });
  }

  private void assertSameVerdict(byte[] value) {
    assertSameVerdict(value, RECORD_TIME);
  }

  private DecodedRecord assertSameVerdict(byte[] value, long recordTime) {
    SourceRecord source = source(value, recordTime);
    DecodedRecord decoded = decoder.decode(source);
    assertThat(decoded).as("%s", new Printable(value)).isEqualTo(decoder.decodeWithJackson(source));
    return decoded;
  }

  private static SourceRecord source(byte[] value, long recordTime) {
    return new SourceRecord("financial-transactions", 0, 7L, recordTime, null, value);
  }

  @Provide
  Arbitrary<Long> recordTimes() {
    return Arbitraries.frequencyOf(
        Tuple.of(8, Arbitraries.just(RECORD_TIME)),
        Tuple.of(1, Arbitraries.of(-1L, 0L)),
        Tuple.of(1, Arbitraries.longs().between(0, 253_402_300_799_999L)));
  }

  /** Half typical records, half odd ones. */
  @Provide
  Arbitrary<String> records() {
    return Arbitraries.oneOf(typicalRecords(), oddRecords());
  }

  /**
   * The five fields in the usual order, each with a value of its type (though not always a valid
   * one), compact or spaced: what producers write, and what the fast path must read as Jackson
   * does.
   */
  private static Arbitrary<String> typicalRecords() {
    Arbitrary<String> id =
        Arbitraries.oneOf(
                Arbitraries.longs().greaterOrEqual(0).map(n -> "tx-" + n),
                Arbitraries.strings()
                    .withCharRange(' ', '~')
                    .ofMaxLength(130)
                    .filter(s -> quotable(s)))
            .map(FlatRecordReaderPropertiesTest::quoted);
    Arbitrary<String> currency =
        Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of("EUR", "USD", "GBP", "JPY")),
                Tuple.of(1, Arbitraries.of("eur", "XXX", "EURO", "", " EUR")))
            .map(FlatRecordReaderPropertiesTest::quoted);
    Arbitrary<String> timestamp =
        Arbitraries.frequencyOf(
            Tuple.of(6, aroundTheRecordTime()),
            Tuple.of(1, timestampText().map(FlatRecordReaderPropertiesTest::quoted)),
            Tuple.of(1, integer()));
    Arbitrary<String> amount =
        Arbitraries.frequencyOf(
            Tuple.of(4, Arbitraries.longs().between(-5_000, 500_000).map(String::valueOf)),
            Tuple.of(1, integer()));
    Arbitrary<String> space = Arbitraries.of("", "", "", " ", "\n  ");
    return Combinators.combine(id, id, amount, currency, timestamp, space)
        .as(
            (transactionId, userId, cents, code, time, gap) ->
                object(
                    List.of(NAMES),
                    List.of(transactionId, userId, cents, code, time),
                    Collections.nCopies(4 * NAMES.length + 4, gap)));
  }

  /**
   * Records built member by member, where any part may be what the rules or the parser treat
   * otherwise: unknown, escaped or repeated names, values of any kind, odd whitespace, a byte order
   * mark, something after the object.
   */
  private static Arbitrary<String> oddRecords() {
    Arbitrary<String> member =
        Arbitraries.frequencyOf(
            Tuple.of(8, Arbitraries.integers().between(0, 4).map(i -> NAMES[i])),
            Tuple.of(
                1,
                Arbitraries.of(
                    "note", "User_Id", "user\\u005fid", "currency ", "", "amount_cents\u00e9")));
    Arbitrary<List<String>> names =
        Arbitraries.oneOf(
            Arbitraries.just(List.of(NAMES)),
            Arbitraries.just(List.of(NAMES)).map(FlatRecordReaderPropertiesTest::shuffled),
            member.list().ofMinSize(0).ofMaxSize(7));
    return Combinators.combine(
            names.flatMap(
                list ->
                    Combinators.combine(
                            Arbitraries.just(list),
                            literal().list().ofSize(list.size()),
                            whitespace().list().ofSize(4 * list.size() + 4))
                        .as(FlatRecordReaderPropertiesTest::object)),
            Arbitraries.of("", "", "", "", "\ufeff", " ", "\n", "\u00a0"),
            Arbitraries.of("", "", "", "", " \r\n", "x", "{}", ",", "\u0000", "]", "}"))
        .as((object, prefix, suffix) -> prefix + object + suffix);
  }

  /**
   * Event times from 12 hours before to 2 hours after {@link #RECORD_TIME} (so some lie too far in
   * the future), in each form the rules accept.
   */
  private static Arbitrary<String> aroundTheRecordTime() {
    return Combinators.combine(
            Arbitraries.longs().between(-12 * 3_600_000L, 2 * 3_600_000L),
            Arbitraries.integers().between(0, 3))
        .as(
            (offset, form) -> {
              Instant time = Instant.ofEpochMilli(RECORD_TIME + offset);
              return switch (form) {
                case 0 -> quoted(time.toString());
                case 1 -> quoted(time.toString().replace('T', ' ').replace("Z", ""));
                case 2 -> quoted(time.atOffset(ZoneOffset.ofHours(1)).toString());
                default -> Long.toString(time.toEpochMilli());
              };
            });
  }

  private static Arbitrary<String> timestampText() {
    return Arbitraries.of(
        "2026-11-29T10:15:30Z",
        "2026-11-29 10:15:30.123",
        "2026-11-29T10:15:30",
        "2026-11-29T11:15:30+01:00",
        "2026-02-30 10:00:00",
        "10000-01-01T00:00:00Z",
        "0001-01-01T00:00:00Z",
        "2026-11-29 13:15:30",
        "1764410130123",
        "2026-11-29t10:15:30z");
  }

  private static String object(List<String> names, List<String> literals, List<String> spaces) {
    StringBuilder json = new StringBuilder(spaces.get(0)).append('{').append(spaces.get(1));
    for (int i = 0; i < names.size(); i++) {
      if (i > 0) {
        json.append(',').append(spaces.get(4 * i + 2));
      }
      json.append('"')
          .append(names.get(i))
          .append('"')
          .append(spaces.get(4 * i + 3))
          .append(':')
          .append(spaces.get(4 * i + 4))
          .append(literals.get(i))
          .append(spaces.get(4 * i + 5));
    }
    return json.append('}').append(spaces.get(2)).toString();
  }

  private static List<String> shuffled(List<String> names) {
    List<String> copy = new ArrayList<>(names);
    Collections.rotate(copy, names.size() / 2);
    Collections.swap(copy, 0, 1);
    return copy;
  }

  /** Mostly none; otherwise JSON's four whitespace bytes, and some that are not JSON whitespace. */
  private static Arbitrary<String> whitespace() {
    return Arbitraries.frequencyOf(
        Tuple.of(12, Arbitraries.just("")),
        Tuple.of(3, Arbitraries.of(" ", "  ", "\t", "\n", "\r\n", " \t\r\n ")),
        Tuple.of(1, Arbitraries.of("\f", "\u000b", "\u00a0", "\u0000", "/**/")));
  }

  /** A value for any field: strings, ids, codes, timestamps, integers and everything else. */
  private static Arbitrary<String> literal() {
    return Arbitraries.frequencyOf(
        Tuple.of(6, plainString().map(FlatRecordReaderPropertiesTest::quoted)),
        Tuple.of(
            3,
            Arbitraries.oneOf(
                    Arbitraries.of("EUR", "USD", "eur", "XXX", "EURO", "", " EUR", "  ", "\u00e9"),
                    timestampText())
                .map(FlatRecordReaderPropertiesTest::quoted)),
        Tuple.of(2, escapedString()),
        Tuple.of(4, integer()),
        Tuple.of(
            2,
            Arbitraries.of(
                "12.5",
                "1e3",
                "1E+2",
                "-0.0",
                "0e0",
                "1.",
                ".5",
                "-",
                "+1",
                "--1",
                "0x10",
                "null",
                "true",
                "false",
                "nul",
                "True",
                "{}",
                "[]",
                "{\"a\":[1,{\"b\":null}]}",
                "[1,2",
                "\"unclosed",
                "NaN",
                "Infinity",
                "-Infinity")));
  }

  /** Strings that need no escapes, mostly ASCII. */
  private static Arbitrary<String> plainString() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ascii().ofMaxLength(20).filter(s -> quotable(s)),
        Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(140).filter(s -> quotable(s)),
        Arbitraries.strings()
            .withChars('a', ' ', '\u007f', '\u00e9', '\u4e2d', '\u3000')
            .ofMaxLength(10));
  }

  private static boolean quotable(String s) {
    return s.indexOf('"') < 0 && s.indexOf('\\') < 0;
  }

  /** Strings with escapes and raw control characters (which JSON forbids). */
  private static Arbitrary<String> escapedString() {
    return Arbitraries.of(
            "\\\"",
            "\\\\",
            "\\/",
            "\\n",
            "\\t",
            "\\u0041",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\ud83d",
            "\\x",
            "\\u12",
            "\t",
            "\u0001",
            "\n",
            "a\\u0020")
        .list()
        .ofMinSize(1)
        .ofMaxSize(3)
        .map(parts -> "\"x" + String.join("", parts) + "\"");
  }

  /** Integers, the signed 64-bit range's edges and what lies just past them, and odd spellings. */
  private static Arbitrary<String> integer() {
    return Arbitraries.oneOf(
        Arbitraries.longs().map(String::valueOf),
        Arbitraries.longs().between(-1000, 1000).map(String::valueOf),
        Arbitraries.of(
            "0",
            "-0",
            "00",
            "-00",
            "01",
            "-01",
            "007",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "-9223372036854775809",
            "9999999999999999999",
            "-9999999999999999999",
            "10000000000000000000",
            "09223372036854775807",
            "922337203685477580",
            "-922337203685477580",
            "1764410130123",
            "253402300799999",
            "253402300800000",
            "-62135596800000",
            "-62135596800001",
            "1".repeat(1000)));
  }

  @Provide
  Arbitrary<List<Mutation>> mutations() {
    Arbitrary<Mutation> mutation =
        Combinators.combine(
                Arbitraries.integers().between(0, 4),
                Arbitraries.integers().between(0, 1000),
                Arbitraries.oneOf(Arbitraries.of(toList(INTERESTING_BYTES)), Arbitraries.bytes()))
            .as(Mutation::new);
    return mutation.list().ofMinSize(1).ofMaxSize(3);
  }

  private static List<Byte> toList(byte[] bytes) {
    List<Byte> list = new ArrayList<>();
    for (byte b : bytes) {
      list.add(b);
    }
    return list;
  }

  /** One change of a value's bytes at a position taken modulo its length. */
  record Mutation(int kind, int position, byte b) {
    byte[] apply(byte[] value) {
      int at = value.length == 0 ? 0 : position % value.length;
      return switch (kind) {
        case 0 -> value.length == 0 ? value : replace(value, at, b);
        case 1 -> value.length == 0 ? value : remove(value, at);
        case 2 -> value.length == 0 ? value : insert(value, at, value[at]);
        case 3 -> insert(value, at, b);
        default -> truncate(value, at);
      };
    }
  }

  private static byte[] replace(byte[] value, int at, byte b) {
    byte[] copy = value.clone();
    copy[at] = b;
    return copy;
  }

  private static byte[] remove(byte[] value, int at) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(value, 0, at);
    out.write(value, at + 1, value.length - at - 1);
    return out.toByteArray();
  }

  private static byte[] insert(byte[] value, int at, byte b) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(value, 0, at);
    out.write(b);
    out.write(value, at, value.length - at);
    return out.toByteArray();
  }

  private static byte[] truncate(byte[] value, int at) {
    return Arrays.copyOf(value, at);
  }

  private static String quoted(String s) {
    return '"' + s + '"';
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A value for a failure message: its text with every byte outside printable ASCII escaped. */
  private record Printable(byte[] value) {
    @Override
    public String toString() {
      StringBuilder out = new StringBuilder();
      for (byte b : value) {
        int c = b & 0xFF;
        if (c >= 0x20 && c < 0x7f && c != '\\') {
          out.append((char) c);
        } else {
          out.append(String.format("\\x%02x", c));
        }
      }
      return out.toString();
    }
  }
}
