package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.fixtures.Transactions;
import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.junit.jupiter.api.Test;

class AcceptedEventsWatermarksTest {

  private static final SourceRecord SOURCE = new SourceRecord("t", 0, 0, 0, null, new byte[] {'{'});

  private final List<Long> emitted = new ArrayList<>();
  private final WatermarkOutput output =
      new WatermarkOutput() {
        @Override
        public void emitWatermark(Watermark watermark) {
          emitted.add(watermark.getTimestamp());
        }

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}
      };

  private final AcceptedEventsWatermarks watermarks =
      new AcceptedEventsWatermarks(Duration.ofSeconds(5));

  private static DecodedRecord accepted() {
    return DecodedRecord.accept(
        new SourcedTransaction(Transactions.aTransaction().build(), SOURCE));
  }

  private static DecodedRecord rejected() {
    return DecodedRecord.reject(
        new RejectedRecord(RejectionReason.FUTURE_TIMESTAMP, "future", SOURCE));
  }

  @Test
  void emitsNothingBeforeTheFirstAcceptedEvent() {
    watermarks.onEvent(rejected(), 1_000_000, output);
    watermarks.onPeriodicEmit(output);

    assertThat(emitted).isEmpty();
  }

  @Test
  void trailsTheLargestAcceptedEventTimeByTheBoundAndIgnoresRejections() {
    watermarks.onEvent(accepted(), 100_000, output);
    watermarks.onEvent(accepted(), 90_000, output);
    watermarks.onEvent(rejected(), 9_000_000, output);
    watermarks.onPeriodicEmit(output);

    // Flink's convention: W = max - bound - 1, so a window ending at max - bound fires exactly
    // then.
    assertThat(emitted).containsExactly(100_000L - 5_000 - 1);
  }
}
