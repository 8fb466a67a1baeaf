package dev.tally.adapters.kafka;

import java.io.IOException;
import java.util.Collection;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.TwoPhaseCommittingStatefulSink;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;

/**
 * Flink's {@link KafkaSink}, unchanged but for its committer, which {@link LostTransactionGuard}
 * watches, and for its writer, which hands each record over with the checkpoint it follows ({@link
 * CheckpointStampingWriter}). Writer state, committables and their serializers are the connector's
 * own, so the sink's state in existing checkpoints and savepoints restores as it is.
 *
 * @param <IN> the records the sink receives
 * @param <OUT> the records the connector's writer serializes
 */
final class GuardedKafkaSink<IN, OUT>
    implements TwoPhaseCommittingStatefulSink<IN, KafkaWriterState, KafkaCommittable>,
        SupportsPostCommitTopology<KafkaCommittable>,
        LineageVertexProvider {

  private static final long serialVersionUID = 1L;

  /** The group and names of the committer's counters: lost transactions, fenced commits. */
  static final String METRIC_GROUP = "tally";

  static final String METRIC_SUBGROUP = "deadletters";
  static final String LOST_TRANSACTIONS = "lost-transactions";
  static final String FENCED_COMMITS = "fenced-commits";

  private final KafkaSink<OUT> kafka;
  private final CheckpointStampingWriter.Stamp<IN, OUT> stamp;
  private final boolean continueAfterLoss;

  GuardedKafkaSink(
      KafkaSink<OUT> kafka,
      CheckpointStampingWriter.Stamp<IN, OUT> stamp,
      boolean continueAfterLoss) {
    this.kafka = kafka;
    this.stamp = stamp;
    this.continueAfterLoss = continueAfterLoss;
  }

  @Override
  public Committer<KafkaCommittable> createCommitter(CommitterInitContext context)
      throws IOException {
    var metrics = context.metricGroup().addGroup(METRIC_GROUP).addGroup(METRIC_SUBGROUP);
    return new LostTransactionGuard(
        kafka.createCommitter(context),
        metrics.counter(LOST_TRANSACTIONS),
        metrics.counter(FENCED_COMMITS),
        continueAfterLoss);
  }

  @Override
  public SimpleVersionedSerializer<KafkaCommittable> getCommittableSerializer() {
    return kafka.getCommittableSerializer();
  }

  @Override
  public PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> createWriter(
      WriterInitContext context) throws IOException {
    return new CheckpointStampingWriter<>(kafka.createWriter(context), stamp, restored(context));
  }

  @Override
  public PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> restoreWriter(
      WriterInitContext context, Collection<KafkaWriterState> recoveredState) throws IOException {
    return new CheckpointStampingWriter<>(
        kafka.restoreWriter(context, recoveredState), stamp, restored(context));
  }

  private static long restored(WriterInitContext context) {
    return context.getRestoredCheckpointId().orElse(0L);
  }

  @Override
  public SimpleVersionedSerializer<KafkaWriterState> getWriterStateSerializer() {
    return kafka.getWriterStateSerializer();
  }

  @Override
  public void addPostCommitTopology(DataStream<CommittableMessage<KafkaCommittable>> committables) {
    // The connector co-locates writer and committer here, by the transactional-id prefix.
    kafka.addPostCommitTopology(committables);
  }

  @Override
  public LineageVertex getLineageVertex() {
    return kafka.getLineageVertex();
  }
}
