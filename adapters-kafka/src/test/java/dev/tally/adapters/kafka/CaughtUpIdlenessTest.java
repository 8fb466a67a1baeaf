package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.fixtures.Transactions;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.util.clock.ManualClock;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * docs/behaviour.md "Watermarks": a partition silent past the idle timeout goes idle only once it
 * is known to be caught up; a broker that does not answer leaves its lag unknown, and the partition
 * goes on holding the watermark. The probe here is the real one, asking a port nothing listens on.
 */
class CaughtUpIdlenessTest {

  /** Short, so that the probe gives up on a question after a second. */
  private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(1);

  private static final long EVENT_TIME = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();

  private final KafkaTransactionSource source =
      new KafkaTransactionSource(
          KafkaSourceConfig.builder()
              .bootstrapServers("127.0.0.1:" + closedPort())
              .idleTimeout(IDLE_TIMEOUT)
              .build());
  private final WatermarkStrategy<DecodedRecord> strategy = source.watermarkStrategy();
  private final ManualClock clock = new ManualClock();

  @Test
  void aSilentPartitionWhoseBrokerDoesNotAnswerHoldsTheWatermarkPastTheTimeout() throws Exception {
    ReaderPartitions reader =
        new ReaderPartitions(new LogEndProbe(source.probeSettings(), "caught-up-idleness-test"));
    reader.attachToThread(); // as the reader does on the task's thread
    try {
      reader.assigned(new KafkaPartitionSplit(new TopicPartition("t", 0), 0));
      Recording output = new Recording();
      WatermarkGenerator<DecodedRecord> partition = generator();

      partition.onEvent(accepted(), EVENT_TIME, output);
      clock.advanceTime(IDLE_TIMEOUT.plusSeconds(1));
      // Several questions' worth of wall time (each gives up after a second), a tick every 100 ms
      // of it, the idle timeout passing on the source's clock between two questions.
      for (int tick = 0; tick < 50; tick++) {
        partition.onPeriodicEmit(output);
        clock.advanceTime(IDLE_TIMEOUT.dividedBy(2));
        Thread.sleep(100);
      }

      assertThat(output.idle).as("marked idle with its lag unknown").isZero();
      assertThat(output.last).isEqualTo(EVENT_TIME - 5_000 - 1);
    } finally {
      reader.detachFromThread();
      reader.close();
    }
  }

  @Test
  void aGeneratorOutsideAKafkaReaderGoesIdleOnSilenceAlone() {
    // No reader on this thread, so nothing to ask: the strategy as its own tests use it.
    Recording output = new Recording();
    WatermarkGenerator<DecodedRecord> partition = generator();

    partition.onEvent(accepted(), EVENT_TIME, output);
    for (int tick = 0; tick < 4; tick++) {
      partition.onPeriodicEmit(output);
      clock.advanceTime(IDLE_TIMEOUT);
    }

    assertThat(output.idle).isPositive();
  }

  private WatermarkGenerator<DecodedRecord> generator() {
    return strategy.createWatermarkGenerator(new ClockContext(clock));
  }

  private static DecodedRecord accepted() {
    return DecodedRecord.accept(
        new SourcedTransaction(
            Transactions.aTransaction().at(Instant.ofEpochMilli(EVENT_TIME)).build(),
            new SourceRecord("t", 0, 7, EVENT_TIME, null, new byte[] {'{'})));
  }

  /** A loopback port nothing listens on once this returns. */
  private static int closedPort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final class Recording implements WatermarkOutput {
    private int idle;
    private long last = Long.MIN_VALUE;

    @Override
    public void emitWatermark(Watermark watermark) {
      last = watermark.getTimestamp();
    }

    @Override
    public void markIdle() {
      idle++;
    }

    @Override
    public void markActive() {}
  }
}
