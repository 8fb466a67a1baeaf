package dev.tally.adapters.iceberg;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.apache.flink.api.common.SupportsConcurrentExecutionAttempts;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreCommitTopology;
import org.apache.flink.streaming.api.connector.sink2.SupportsPreWriteTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.flink.sink.IcebergSink;

/**
 * Iceberg's {@link IcebergSink} with one step replaced: the shuffle in front of its writers, which
 * here is {@link PartitionChannel} instead of Iceberg's hash distribution. Writer, pre-commit
 * aggregator, committer and their serializers are Iceberg's own, called as they are, so the files
 * written, the commits and the operators' uids and state are what {@code IcebergSink} makes.
 *
 * <p>The Iceberg sink is built with {@code IcebergSink.Builder}'s package-private {@code build()},
 * reached reflectively: 1.11 offers no public way to get the sink without also adding its
 * distribution to the job. A later Iceberg without that method fails the job at submission with a
 * message saying so, never silently.
 *
 * @param <C> Iceberg's committable (package-private in Iceberg, so only a type parameter here)
 * @param <W> Iceberg's write result
 */
final class PartitionDistributedSink<C, W>
    implements Sink<RowData>,
        SupportsPreWriteTopology<RowData>,
        SupportsCommitter<C>,
        SupportsPreCommitTopology<W, C>,
        SupportsPostCommitTopology<C>,
        SupportsConcurrentExecutionAttempts {

  private static final long serialVersionUID = 1L;

  private final IcebergSink iceberg;
  private final PartitionChannel channel;

  private PartitionDistributedSink(IcebergSink iceberg, PartitionChannel channel) {
    this.iceberg = iceberg;
    this.channel = channel;
  }

  /**
   * Builds Iceberg's sink from the builder, then wraps it.
   *
   * @param builder a configured {@code IcebergSink} builder; its {@code append()} is not called
   * @param channel how rows are keyed to writers
   */
  static PartitionDistributedSink<?, ?> wrap(
      IcebergSink.Builder builder, PartitionChannel channel) {
    return new PartitionDistributedSink<>(build(builder), channel);
  }

  private static IcebergSink build(IcebergSink.Builder builder) {
    try {
      Method build = IcebergSink.Builder.class.getDeclaredMethod("build");
      build.setAccessible(true);
      return (IcebergSink) build.invoke(builder);
    } catch (NoSuchMethodException | IllegalAccessException | RuntimeException e) {
      throw new IllegalStateException(
          "This Iceberg version's IcebergSink.Builder has no build() Tally can call; Tally is"
              + " built against Iceberg 1.11. Set iceberg.distribution to none to use Iceberg's"
              + " own distribution instead.",
          e);
    } catch (InvocationTargetException e) {
      // The builder's own checks (table, equality fields, options): report them as they are.
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("building Iceberg's sink", cause);
    }
  }

  @Override
  public DataStream<RowData> addPreWriteTopology(DataStream<RowData> rows) {
    // A keyBy, not a custom partitioner: with unaligned checkpoints Flink can re-route in-flight
    // rows of a keyed exchange to the right writer after rescaling, and refuses custom partitioners
    // for that reason. The writer is keyed again per row, which this key makes cheap.
    return rows.keyBy(channel, Types.INT);
  }

  @Override
  public SinkWriter<RowData> createWriter(WriterInitContext context) throws IOException {
    return iceberg.createWriter(context);
  }

  @Override
  @SuppressWarnings("unchecked")
  public Committer<C> createCommitter(CommitterInitContext context) throws IOException {
    return (Committer<C>) (Committer<?>) iceberg.createCommitter(context);
  }

  @Override
  @SuppressWarnings("unchecked")
  public SimpleVersionedSerializer<C> getCommittableSerializer() {
    return (SimpleVersionedSerializer<C>)
        (SimpleVersionedSerializer<?>) iceberg.getCommittableSerializer();
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes", "cast"})
  public DataStream<CommittableMessage<C>> addPreCommitTopology(
      DataStream<CommittableMessage<W>> writeResults) {
    // Raw types: Iceberg's committable type is package-private, and the framework is erased.
    DataStream iceberged = iceberg.addPreCommitTopology((DataStream) writeResults);
    return iceberged;
  }

  @Override
  @SuppressWarnings("unchecked")
  public SimpleVersionedSerializer<W> getWriteResultSerializer() {
    return (SimpleVersionedSerializer<W>)
        (SimpleVersionedSerializer<?>) iceberg.getWriteResultSerializer();
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void addPostCommitTopology(DataStream<CommittableMessage<C>> committables) {
    iceberg.addPostCommitTopology((DataStream) committables);
  }
}
