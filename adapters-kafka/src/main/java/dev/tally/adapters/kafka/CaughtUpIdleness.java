package dev.tally.adapters.kafka;

import dev.tally.domain.transaction.SourceRecord;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.util.clock.RelativeClock;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idleness for one Kafka partition: idle once it has sent no accepted record for the idle timeout
 * and its {@link LogEndProbe} has answered that no record the source would accept lies between the
 * reader's position and the log end. Silence alone is not enough: a partition is also silent while
 * the broker is unreachable or while its records are on their way, and letting it go idle then
 * would let the partitions that resume first carry the watermark past records still unread in it.
 * So Beam's KafkaIO lets a partition's watermark advance only once its backlog is read.
 *
 * <p>Per record it only notes the offset and counts accepted records; the question goes to the
 * probe, asynchronously, only for a partition silent past the timeout, and at most once per timeout
 * while it stays silent and not caught up. Until the answer is "caught up" the partition keeps
 * emitting its watermark (which stays where its records left it), holding the others back. An
 * accepted record makes it active again, and its next silence is asked about afresh.
 *
 * <p>Like Flink's {@code WatermarksWithIdleness}, time is the source's input-activity clock, which
 * stands still under backpressure. Everything runs on the source thread.
 */
final class CaughtUpIdleness implements WatermarkGenerator<DecodedRecord> {

  private static final Logger LOG = LoggerFactory.getLogger(CaughtUpIdleness.class);

  private final WatermarkGenerator<DecodedRecord> watermarks;
  private final long timeoutNanos;
  private final RelativeClock clock;
  private final ReaderPartitions partitions;

  /** This generator's partition, from its first record; {@code null} before. */
  private TopicPartition partition;

  /** The next offset the reader reads in {@link #partition}. */
  private long position;

  private long accepted;
  private long acceptedWhenChecked;
  private long silentSince;
  private boolean idle;
  private CompletableFuture<Boolean> answer;
  private boolean asked;
  private long askedAt;

  CaughtUpIdleness(
      WatermarkGenerator<DecodedRecord> watermarks,
      Duration idleTimeout,
      RelativeClock clock,
      ReaderPartitions partitions) {
    if (idleTimeout.isZero() || idleTimeout.isNegative()) {
      throw new IllegalArgumentException("idle timeout must be positive: " + idleTimeout);
    }
    this.watermarks = watermarks;
    this.timeoutNanos = idleTimeout.toNanos();
    this.clock = clock;
    this.partitions = partitions;
    this.silentSince = clock.relativeTimeNanos();
  }

  @Override
  public void onEvent(DecodedRecord event, long eventTimestamp, WatermarkOutput output) {
    moveTo(event);
    accepted++;
    watermarks.onEvent(event, eventTimestamp, output);
  }

  /** A rejected record moves the position, not the watermark, and is no sign of activity. */
  void onRejected(DecodedRecord event) {
    moveTo(event);
  }

  private void moveTo(DecodedRecord event) {
    if (partition == null) {
      SourceRecord source =
          event.isAccepted() ? event.accepted().source() : event.rejected().source();
      partition = new TopicPartition(source.topic(), source.partition());
      partitions.claim(partition);
    }
    position = event.offset() + 1;
  }

  @Override
  public void onPeriodicEmit(WatermarkOutput output) {
    long now = clock.relativeTimeNanos();
    if (accepted != acceptedWhenChecked) {
      acceptedWhenChecked = accepted;
      silentSince = now;
      idle = false;
      answer = null; // asked about an older silence
    } else if (!idle && now - silentSince >= timeoutNanos) {
      idle = caughtUp(now);
    }
    if (idle) {
      output.markIdle();
    } else {
      watermarks.onPeriodicEmit(output);
    }
  }

  private boolean caughtUp(long now) {
    if (answer == null) {
      if (asked && now - askedAt < timeoutNanos) {
        return false; // asked within the last timeout: not again yet
      }
      asked = true;
      askedAt = now;
      answer =
          partition == null
              ? partitions.unclaimedCaughtUp()
              : partitions.caughtUp(partition, position);
      return false;
    }
    if (!answer.isDone()) {
      return false;
    }
    boolean caughtUp = answer.getNow(false);
    answer = null;
    LOG.debug(
        "{} silent for the idle timeout at position {}: {}",
        partition == null ? "A partition without records yet" : partition,
        position,
        caughtUp ? "caught up, idle" : "not known to be caught up, holds the watermark");
    return caughtUp;
  }
}
