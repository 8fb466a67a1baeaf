package dev.tally.adapters.kafka;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The {@link KafkaSource} Tally reads, with two changes around the connector's own parts:
 *
 * <ul>
 *   <li>Its readers ({@link CatchUpReader}) let a silent partition go idle only once it is caught
 *       up with its log end.
 *   <li>Bounded, it ends after a restore too. The connector's enumerator (5.0.0) tells its readers
 *       "no more splits" only once a discovery found new partitions; a restored one (a savepoint, a
 *       retained checkpoint, a JobManager failover) finds every partition already in its state, so
 *       its readers read to their stopping offsets and then wait forever (FLINK-31006). {@link
 *       EndingSplitEnumerator} sends that signal itself in exactly that case. Splits restored from
 *       a streaming job's state have no stopping offset; its readers give them the partition's end
 *       ({@link CatchUpReader#stopping}).
 * </ul>
 *
 * Splits, state and its serializers are the connector's, unchanged, so savepoints move freely
 * between this source and a plain {@code KafkaSource}.
 */
final class TallyKafkaSource<T>
    implements Source<T, KafkaPartitionSplit, KafkaSourceEnumState>, ResultTypeQueryable<T> {
  private static final long serialVersionUID = 1L;

  private final KafkaSource<T> delegate;
  private final LogEndProbe.Settings probe;

  TallyKafkaSource(KafkaSource<T> delegate, LogEndProbe.Settings probe) {
    this.delegate = delegate;
    this.probe = probe;
  }

  @Override
  public Boundedness getBoundedness() {
    return delegate.getBoundedness();
  }

  @Override
  public SourceReader<T, KafkaPartitionSplit> createReader(SourceReaderContext readerContext)
      throws Exception {
    String clientId = probe.groupId() + "-log-end-probe-" + readerContext.getIndexOfSubtask();
    return new CatchUpReader<>(
        delegate.createReader(readerContext),
        new LogEndProbe(probe, "tally-" + clientId),
        bounded());
  }

  @Override
  public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
      SplitEnumeratorContext<KafkaPartitionSplit> context) throws Exception {
    return bounded()
        ? new EndingSplitEnumerator(context, delegate::createEnumerator)
        : delegate.createEnumerator(context);
  }

  @Override
  public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
      SplitEnumeratorContext<KafkaPartitionSplit> context, KafkaSourceEnumState state)
      throws Exception {
    return bounded()
        ? new EndingSplitEnumerator(context, c -> delegate.restoreEnumerator(c, state))
        : delegate.restoreEnumerator(context, state);
  }

  private boolean bounded() {
    return delegate.getBoundedness() == Boundedness.BOUNDED;
  }

  @Override
  public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
    return delegate.getSplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<KafkaSourceEnumState> getEnumeratorCheckpointSerializer() {
    return delegate.getEnumeratorCheckpointSerializer();
  }

  @Override
  public TypeInformation<T> getProducedType() {
    return delegate.getProducedType();
  }
}
