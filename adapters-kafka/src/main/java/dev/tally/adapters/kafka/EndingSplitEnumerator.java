package dev.tally.adapters.kafka;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/**
 * The bounded Kafka enumerator, with the "no more splits" signal it omits after a restore
 * (FLINK-31006).
 *
 * <p>A bounded {@code KafkaSourceEnumerator} discovers partitions once, from {@code start()}: one
 * {@code callAsync} whose handler compares the partitions found with those in its state. Only when
 * they differ does the handler schedule a second {@code callAsync} (the new splits' offsets), whose
 * handler marks "no more new splits" and signals every reader, then and on every later
 * registration. When they do not differ (always after a restore of an unchanged topic, and on a
 * fresh start over no partition) the handler returns early, nothing marks the end, and no reader
 * ever finishes. This enumerator watches that first handler through the context it gives the
 * delegate: if it returned without scheduling anything, the delegate will never signal, so this one
 * does, to the readers registered then and to each reader that registers later, as the delegate
 * would have. Splits are still assigned only by the delegate, before any signal.
 *
 * <p>Every method runs in the coordinator thread (the handlers of {@code callAsync} too), so the
 * fields need no synchronisation.
 */
final class EndingSplitEnumerator
    implements SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> {

  /** Creates the connector's enumerator on the context it is given. */
  interface Factory {
    SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> create(
        SplitEnumeratorContext<KafkaPartitionSplit> context) throws Exception;
  }

  private final SplitEnumeratorContext<KafkaPartitionSplit> context;
  private final SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> delegate;
  private boolean starting;
  private boolean discoveryWatched;
  private int callsScheduled;
  private boolean signalling;

  EndingSplitEnumerator(SplitEnumeratorContext<KafkaPartitionSplit> context, Factory factory)
      throws Exception {
    this.context = context;
    this.delegate = factory.create(new WatchingContext());
  }

  @Override
  public void start() {
    starting = true;
    try {
      delegate.start();
    } finally {
      starting = false;
    }
  }

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {
    delegate.handleSplitRequest(subtaskId, requesterHostname);
  }

  @Override
  public void addSplitsBack(List<KafkaPartitionSplit> splits, int subtaskId) {
    delegate.addSplitsBack(splits, subtaskId);
    // The delegate assigns them at once to a reader that registered again already, and then
    // signals it, once it has marked the end.
    if (signalling && context.registeredReaders().containsKey(subtaskId)) {
      context.signalNoMoreSplits(subtaskId);
    }
  }

  @Override
  public void addReader(int subtaskId) {
    delegate.addReader(subtaskId);
    if (signalling) {
      context.signalNoMoreSplits(subtaskId);
    }
  }

  @Override
  public KafkaSourceEnumState snapshotState(long checkpointId) throws Exception {
    return delegate.snapshotState(checkpointId);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    delegate.notifyCheckpointComplete(checkpointId);
  }

  @Override
  public void handleSourceEvent(int subtaskId, SourceEvent sourceEvent) {
    delegate.handleSourceEvent(subtaskId, sourceEvent);
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }

  private <T> BiConsumer<T, Throwable> watchDiscovery(BiConsumer<T, Throwable> handler) {
    return (partitions, error) -> {
      int before = callsScheduled;
      handler.accept(partitions, error); // throws on a failed discovery, failing the job
      if (callsScheduled == before) {
        // No new splits to initialize: the delegate will never mark the end.
        signalling = true;
        context.registeredReaders().keySet().forEach(context::signalNoMoreSplits);
      }
    };
  }

  /** The context the delegate sees: the real one, with its first discovery watched. */
  private final class WatchingContext implements SplitEnumeratorContext<KafkaPartitionSplit> {

    @Override
    public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
      callsScheduled++;
      if (starting && !discoveryWatched) {
        discoveryWatched = true;
        context.callAsync(callable, watchDiscovery(handler));
      } else {
        context.callAsync(callable, handler);
      }
    }

    @Override
    public <T> void callAsync(
        Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelay, long period) {
      // Periodic discovery: an unbounded source, or one that never ends by design.
      callsScheduled++;
      context.callAsync(callable, handler, initialDelay, period);
    }

    @Override
    public SplitEnumeratorMetricGroup metricGroup() {
      return context.metricGroup();
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
      context.sendEventToSourceReader(subtaskId, event);
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, int attemptNumber, SourceEvent event) {
      context.sendEventToSourceReader(subtaskId, attemptNumber, event);
    }

    @Override
    public int currentParallelism() {
      return context.currentParallelism();
    }

    @Override
    public Map<Integer, ReaderInfo> registeredReaders() {
      return context.registeredReaders();
    }

    @Override
    public Map<Integer, Map<Integer, ReaderInfo>> registeredReadersOfAttempts() {
      return context.registeredReadersOfAttempts();
    }

    @Override
    public void assignSplits(SplitsAssignment<KafkaPartitionSplit> newSplitAssignments) {
      context.assignSplits(newSplitAssignments);
    }

    @Override
    public void assignSplit(KafkaPartitionSplit split, int subtask) {
      context.assignSplit(split, subtask);
    }

    @Override
    public void signalNoMoreSplits(int subtask) {
      context.signalNoMoreSplits(subtask);
    }

    @Override
    public void runInCoordinatorThread(Runnable runnable) {
      context.runInCoordinatorThread(runnable);
    }

    @Override
    public void setIsProcessingBacklog(boolean isProcessingBacklog) {
      context.setIsProcessingBacklog(isProcessingBacklog);
    }
  }
}
