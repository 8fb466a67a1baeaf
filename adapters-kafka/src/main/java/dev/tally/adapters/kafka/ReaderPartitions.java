package dev.tally.adapters.kafka;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions one source reader was assigned, where it started in each, and its {@link
 * LogEndProbe}: what the reader's watermark generators ask whether a silent partition is caught up.
 *
 * <p>Flink creates a partition's watermark generator without saying which partition it is for (and
 * before the reader hears of the split). So a generator learns its partition from its first record
 * and claims it here; one that has had no record yet stands for one of the partitions no generator
 * has claimed, and is caught up only when all of those are, each from where the reader started in
 * it.
 *
 * <p>The reader and its generators run on the task's thread: {@link CatchUpReader} makes this
 * object {@link #current()} on that thread while the reader lives, and nothing here needs
 * synchronisation. One task thread runs one source reader.
 */
final class ReaderPartitions {

  private static final ThreadLocal<ReaderPartitions> CURRENT = new ThreadLocal<>();

  private final LogEndProbe probe;
  private final Map<TopicPartition, Long> startingOffsets = new LinkedHashMap<>();
  private final Set<TopicPartition> claimed = new HashSet<>();

  ReaderPartitions(LogEndProbe probe) {
    this.probe = probe;
  }

  /** The partitions of the reader on this thread, or {@code null} outside a Tally Kafka reader. */
  static ReaderPartitions current() {
    return CURRENT.get();
  }

  /** Makes this the reader of the calling (task) thread. */
  void attachToThread() {
    CURRENT.set(this);
  }

  /** Ends {@link #attachToThread()}, if it was this reader's. */
  void detachFromThread() {
    if (CURRENT.get() == this) {
      CURRENT.remove();
    }
  }

  void assigned(KafkaPartitionSplit split) {
    startingOffsets.putIfAbsent(split.getTopicPartition(), split.getStartingOffset());
  }

  /** A generator saw a record of {@code partition}: from now on it answers for it. */
  void claim(TopicPartition partition) {
    claimed.add(partition);
  }

  /** Whether {@code partition} holds no record the source would accept from {@code position}. */
  CompletableFuture<Boolean> caughtUp(TopicPartition partition, long position) {
    return probe.caughtUp(Map.of(partition, position));
  }

  /**
   * Whether every partition no generator has claimed holds no record the source would accept from
   * where the reader started in it: the question of a generator that has had no record yet.
   */
  CompletableFuture<Boolean> unclaimedCaughtUp() {
    Map<TopicPartition, Long> unclaimed = new LinkedHashMap<>(startingOffsets);
    unclaimed.keySet().removeAll(claimed);
    return probe.caughtUp(unclaimed);
  }

  void close() {
    probe.close();
  }
}
