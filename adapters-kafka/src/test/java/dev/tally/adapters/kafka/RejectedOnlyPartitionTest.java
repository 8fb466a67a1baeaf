package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.fixtures.Transactions;
import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkOutputMultiplexer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.clock.ManualClock;
import org.junit.jupiter.api.Test;

/**
 * docs/behaviour.md "Watermarks": a partition that sends only rejected records holds no window
 * back. The source's watermark strategy runs here as the Kafka source runs it: one generator per
 * partition, their outputs combined by Flink's {@link WatermarkOutputMultiplexer} (the smallest of
 * the partitions that are not idle), driven by a manual input-activity clock.
 */
class RejectedOnlyPartitionTest {

  private static final long HOUR = Duration.ofHours(1).toMillis();
  private static final long START = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();

  private final ManualClock clock = new ManualClock();
  private final List<Long> combined = new ArrayList<>();
  private final List<Partition> all = new ArrayList<>();
  private final WatermarkOutputMultiplexer partitions =
      new WatermarkOutputMultiplexer(
          new WatermarkOutput() {
            @Override
            public void emitWatermark(Watermark watermark) {
              combined.add(watermark.getTimestamp());
            }

            @Override
            public void markIdle() {}

            @Override
            public void markActive() {}
          });

  private final WatermarkStrategy<DecodedRecord> strategy =
      new KafkaTransactionSource(
              KafkaSourceConfig.builder()
                  .bootstrapServers("localhost:9092")
                  .idleTimeout(Duration.ofSeconds(30))
                  .build())
          .watermarkStrategy();
  private final TimestampAssigner<DecodedRecord> timestamps =
      strategy.createTimestampAssigner(() -> new UnregisteredMetricsGroup());

  @Test
  void aPartitionOfRejectedRecordsOnlyGoesIdleAndTheWindowsOfTheOthersClose() {
    Partition valid = new Partition("valid");
    Partition rejectedOnly = new Partition("rejected-only");

    // Two minutes of processing time; event time runs a minute per second on the valid partition,
    // and the other partition sends a rejected record every second, all along.
    for (int second = 0; second < 120; second++) {
      long now = START + second * 60_000L;
      valid.send(accepted(now), now);
      rejectedOnly.send(rejected(RejectionReason.MALFORMED), now);
      rejectedOnly.send(rejected(RejectionReason.INVALID_FIELD), now);
      tick();
    }

    // The window [10:00, 11:00) is final once the valid partition is an hour and 5 s past it.
    assertThat(latest()).isGreaterThanOrEqualTo(START + HOUR - 1);
  }

  @Test
  void aPartitionOfRejectedRecordsThatSendsAValidOneHoldsTheWatermarkAgain() {
    Partition valid = new Partition("valid");
    Partition sometimesValid = new Partition("sometimes-valid");
    for (int second = 0; second < 60; second++) {
      long now = START + HOUR + second * 60_000L;
      valid.send(accepted(now), now);
      sometimesValid.send(rejected(RejectionReason.MALFORMED), now);
      tick();
    }
    long before = latest();
    assertThat(before).isGreaterThan(START + HOUR + 50 * 60_000L);

    // An accepted event of an early hour: the partition holds the watermark back again, so the
    // combined watermark stays where it was (it never goes back) while the partition is active.
    sometimesValid.send(accepted(START), START);
    for (int second = 0; second < 10; second++) {
      long now = START + 2 * HOUR + second * 60_000L;
      valid.send(accepted(now), now);
      sometimesValid.send(rejected(RejectionReason.MALFORMED), now);
      tick();
    }
    assertThat(latest()).isEqualTo(before);
  }

  private long latest() {
    assertThat(combined)
        .as("watermarks of the job, with one partition sending only rejected records")
        .isNotEmpty();
    return combined.get(combined.size() - 1);
  }

  private void tick() {
    clock.advanceTime(Duration.ofSeconds(1));
    all.forEach(Partition::periodicEmit);
    partitions.onPeriodicEmit();
  }

  private DecodedRecord accepted(long eventTime) {
    return DecodedRecord.accept(
        new SourcedTransaction(
            Transactions.aTransaction().at(Instant.ofEpochMilli(eventTime)).build(),
            new SourceRecord("t", 0, 0, eventTime, null, new byte[] {'{'})));
  }

  private static DecodedRecord rejected(RejectionReason reason) {
    return DecodedRecord.reject(
        new RejectedRecord(reason, "bad", new SourceRecord("t", 1, 0, 0, null, new byte[] {'['})));
  }

  /** One Kafka partition: its own generator, as the source keeps one per split. */
  private final class Partition {
    private final String id;
    private final WatermarkGenerator<DecodedRecord> generator;

    Partition(String id) {
      this.id = id;
      partitions.registerNewOutput(id);
      this.generator = strategy.createWatermarkGenerator(new ClockContext(clock));
      all.add(this);
    }

    void send(DecodedRecord record, long kafkaTimestamp) {
      generator.onEvent(
          record,
          timestamps.extractTimestamp(record, kafkaTimestamp),
          partitions.getDeferredOutput(id));
    }

    void periodicEmit() {
      generator.onPeriodicEmit(partitions.getDeferredOutput(id));
    }
  }
}
