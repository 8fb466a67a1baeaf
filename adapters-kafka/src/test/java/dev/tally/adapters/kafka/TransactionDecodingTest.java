package dev.tally.adapters.kafka;

import static dev.tally.domain.fixtures.TransactionJson.aTransactionJson;
import static dev.tally.domain.transaction.TransactionField.AMOUNT_CENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.SourceRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The public seam decodes as the source does, with the source's default limits. */
class TransactionDecodingTest {

  private static final long RECORD_TIME = Instant.parse("2026-11-29T12:00:00Z").toEpochMilli();

  private final Function<SourceRecord, DecodedRecord> decoding = TransactionDecoding.withDefaults();

  private static SourceRecord record(byte[] value) {
    return new SourceRecord("financial-transactions", 0, 7L, RECORD_TIME, null, value);
  }

  @Test
  void acceptsAValidRecordWithItsAmount() {
    DecodedRecord decoded =
        decoding.apply(record(aTransactionJson().raw(AMOUNT_CENTS, "1234").toBytes()));

    assertThat(decoded.isAccepted()).isTrue();
    assertThat(decoded.accepted().transaction().amountCents()).isEqualTo(1234L);
  }

  @Test
  void rejectsWhatTheSourceRejects() {
    DecodedRecord decoded = decoding.apply(record("not json".getBytes(StandardCharsets.UTF_8)));

    assertThat(decoded.isAccepted()).isFalse();
    assertThat(decoded.rejected().reason()).isEqualTo(RejectionReason.MALFORMED);
  }

  @Test
  void appliesTheDefaultLargestRecordSize() {
    byte[] tooLarge = new byte[TransactionDecoder.DEFAULT_MAX_RECORD_BYTES + 1];
    Arrays.fill(tooLarge, (byte) ' ');

    assertThat(decoding.apply(record(tooLarge)).rejected().reason())
        .isEqualTo(RejectionReason.MALFORMED);
  }
}
