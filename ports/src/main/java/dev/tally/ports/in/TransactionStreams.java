package dev.tally.ports.in;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import java.util.Objects;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The two streams a {@link TransactionSource} produces.
 *
 * @param accepted valid transactions with their source records, timestamped and watermarked by
 *     event time
 * @param rejected records that failed decoding or validation, each once, with the reason
 */
public record TransactionStreams(
    DataStream<SourcedTransaction> accepted, DataStream<RejectedRecord> rejected) {

  public TransactionStreams {
    Objects.requireNonNull(accepted, "accepted");
    Objects.requireNonNull(rejected, "rejected");
  }
}
