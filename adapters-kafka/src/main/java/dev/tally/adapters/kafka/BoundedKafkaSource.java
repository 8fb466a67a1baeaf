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
 * A bounded {@link KafkaSource} that ends after a restore too. The connector's enumerator (5.0.0)
 * tells its readers "no more splits" only once a discovery found new partitions; a restored one (a
 * savepoint, a retained checkpoint, a JobManager failover) finds every partition already in its
 * state, so its readers read to their stopping offsets and then wait forever (FLINK-31006). {@link
 * EndingSplitEnumerator} sends that signal itself in exactly that case. Readers, splits, state and
 * its serializers are the connector's, unchanged, so savepoints move freely between this source and
 * a plain {@code KafkaSource}.
 */
final class BoundedKafkaSource<T>
    implements Source<T, KafkaPartitionSplit, KafkaSourceEnumState>, ResultTypeQueryable<T> {
  private static final long serialVersionUID = 1L;

  private final KafkaSource<T> delegate;

  BoundedKafkaSource(KafkaSource<T> delegate) {
    if (delegate.getBoundedness() != Boundedness.BOUNDED) {
      throw new IllegalArgumentException("not a bounded KafkaSource");
    }
    this.delegate = delegate;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public SourceReader<T, KafkaPartitionSplit> createReader(SourceReaderContext readerContext)
      throws Exception {
    return delegate.createReader(readerContext);
  }

  @Override
  public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
      SplitEnumeratorContext<KafkaPartitionSplit> context) throws Exception {
    return new EndingSplitEnumerator(context, delegate::createEnumerator);
  }

  @Override
  public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
      SplitEnumeratorContext<KafkaPartitionSplit> context, KafkaSourceEnumState state)
      throws Exception {
    return new EndingSplitEnumerator(context, c -> delegate.restoreEnumerator(c, state));
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
