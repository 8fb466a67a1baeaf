package dev.tally.adapters.kafka;

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

  /** Created on the task's thread, as Flink creates readers, before any watermark generator. */
  CatchUpReader(SourceReader<T, KafkaPartitionSplit> delegate, LogEndProbe probe) {
    this.delegate = delegate;
    this.partitions = new ReaderPartitions(probe);
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
    splits.forEach(partitions::assigned);
    delegate.addSplits(splits);
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
