package dev.tally.adapters.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.InputStatus;

/**
 * The connector's Kafka reader, with what its partitions' watermark generators need to go idle only
 * once caught up (docs/behaviour.md "Watermarks"): it records the splits it is assigned and owns
 * their {@link LogEndProbe}, both in a {@link ReaderPartitions} that the generators, created on the
 * task's thread, find there. Everything else is the connector's, unchanged.
 */
// SourceReader.close() declares Exception, which javac's "try" lint flags for AutoCloseables.
@SuppressWarnings("try")
final class CatchUpReader<T> implements SourceReader<T, KafkaPartitionSplit> {

  private final SourceReader<T, KafkaPartitionSplit> delegate;
  private final ReaderPartitions partitions;
  private final boolean bounded;

  /**
   * Created on the task's thread, as Flink creates readers, before any watermark generator.
   *
   * @param bounded whether the source is bounded: then a split without a stopping offset (restored
   *     from a streaming job's state) stops at its partition's end, see {@link #stopping}
   */
  CatchUpReader(SourceReader<T, KafkaPartitionSplit> delegate, LogEndProbe probe, boolean bounded) {
    this.delegate = delegate;
    this.partitions = new ReaderPartitions(probe);
    this.bounded = bounded;
    partitions.attachToThread();
  }

  @Override
  public void start() {
    delegate.start();
  }

  @Override
  public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
    return delegate.pollNext(output);
  }

  @Override
  public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
    return delegate.snapshotState(checkpointId);
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return delegate.isAvailable();
  }

  @Override
  public void addSplits(List<KafkaPartitionSplit> splits) {
    List<KafkaPartitionSplit> added = bounded ? stopping(splits) : splits;
    added.forEach(partitions::assigned);
    delegate.addSplits(added);
  }

  /**
   * The splits of a bounded source, each with a stopping offset. The bounded enumerator gives every
   * split it assigns one; a split restored from a streaming job's state has none, and the
   * connector's reader would read it for ever. Such a split stops at its partition's end when the
   * reader takes it ({@link KafkaPartitionSplit#LATEST_OFFSET}, which the connector's split reader
   * resolves then), as a bounded start does. That marker is deprecated in the connector (5.0.0),
   * whose enumerator now resolves "latest" itself, but its split reader still resolves it, and only
   * a reader can stop a split the enumerator never sees again; {@code
   * ExactlyOnceIT#aStreamingJobResumedBoundedEndsByItself} holds it to that. Its end is resolved
   * anew whenever the split is added, so after a failover such a run may read what arrived since.
   */
  @SuppressWarnings("deprecation")
  static List<KafkaPartitionSplit> stopping(List<KafkaPartitionSplit> splits) {
    List<KafkaPartitionSplit> stopping = new ArrayList<>(splits.size());
    for (KafkaPartitionSplit split : splits) {
      stopping.add(
          split.getStoppingOffset().isPresent()
              ? split
              : new KafkaPartitionSplit(
                  split.getTopicPartition(),
                  split.getStartingOffset(),
                  KafkaPartitionSplit.LATEST_OFFSET));
    }
    return stopping;
  }

  @Override
  public void notifyNoMoreSplits() {
    delegate.notifyNoMoreSplits();
  }

  @Override
  public void handleSourceEvents(SourceEvent sourceEvent) {
    delegate.handleSourceEvents(sourceEvent);
  }

  @Override
  public void pauseOrResumeSplits(
      Collection<String> splitsToPause, Collection<String> splitsToResume) {
    delegate.pauseOrResumeSplits(splitsToPause, splitsToResume);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    delegate.notifyCheckpointComplete(checkpointId);
  }

  @Override
  public void notifyCheckpointAborted(long checkpointId) throws Exception {
    delegate.notifyCheckpointAborted(checkpointId);
  }

  @Override
  public void close() throws Exception {
    try {
      delegate.close();
    } finally {
      partitions.detachFromThread();
      partitions.close();
    }
  }
}
