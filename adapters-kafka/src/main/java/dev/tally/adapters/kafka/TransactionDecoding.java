package dev.tally.adapters.kafka;

import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.TransactionValidator;
import java.util.function.Function;

/**
 * The Kafka source's decoding of one record, for code that reads Kafka without Flink (the bench's
 * plain-consumer ceiling): the very decoder the source runs, with the default validator and the
 * default largest record size ({@code docs/behaviour.md "Input"}). The decoder itself stays
 * package-private, so the source's configuration remains the one way to tune it.
 */
public final class TransactionDecoding {

  private TransactionDecoding() {}

  /**
   * A decoder with the defaults; it never throws and is safe to share between threads.
   *
   * @return a function from a Kafka record's coordinates and bytes to exactly one of an accepted
   *     transaction or a rejection
   */
  public static Function<SourceRecord, DecodedRecord> withDefaults() {
    TransactionDecoder decoder =
        new TransactionDecoder(
            TransactionValidator.withDefaults(), TransactionDecoder.DEFAULT_MAX_RECORD_BYTES);
    return decoder::decode;
  }
}
