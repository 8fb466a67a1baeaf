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
 * watches (its counters and messages named by a {@link TransactionalOutput}), and for its writer,
 * which hands each record over with the checkpoint it follows ({@link CheckpointStampingWriter}).
 * Writer state, committables and their serializers are the connector's own, so the sink's state in
 * existing checkpoints and savepoints restores as it is.
 *
 * @param <IN> the records the sink receives
 * @param <OUT> the records the connector's writer serializes
 */
final class GuardedKafkaSink<IN, OUT>
    implements TwoPhaseCommittingStatefulSink<IN, KafkaWriterState, KafkaCommittable>,
        SupportsPostCommitTopology<KafkaCommittable>,
        LineageVertexProvider {

  private static final long serialVersionUID = 1L;

  /**
   * The group and names of the committer's counters: lost transactions, fenced commits; the
   * subgroup is the output's ({@link TransactionalOutput#metricSubgroup()}).
   */
  static final String METRIC_GROUP = "tally";

  static final String LOST_TRANSACTIONS = "lost-transactions";
  static final String FENCED_COMMITS = "fenced-commits";

  private final KafkaSink<OUT> kafka;
  private final CheckpointStampingWriter.Stamp<IN, OUT> stamp;
  private final TransactionalOutput output;
  private final boolean continueAfterLoss;

  /**
   * @param kafka the connector's sink, exactly once
   * @param stamp joins a record and the checkpoint its writer took last
   * @param output what the sink writes, for its counters and messages
   * @param continueAfterLoss whether the job goes on after a lost transaction
   */
  GuardedKafkaSink(
      KafkaSink<OUT> kafka,
      CheckpointStampingWriter.Stamp<IN, OUT> stamp,
      TransactionalOutput output,
      boolean continueAfterLoss) {
    this.kafka = kafka;
    this.stamp = stamp;
    this.output = output;
    this.continueAfterLoss = continueAfterLoss;
  }

  @Override
  public Committer<KafkaCommittable> createCommitter(CommitterInitContext context)
      throws IOException {
    var metrics = context.metricGroup().addGroup(METRIC_GROUP).addGroup(output.metricSubgroup());
    return new LostTransactionGuard(
        kafka.createCommitter(context),
        metrics.counter(LOST_TRANSACTIONS),
        metrics.counter(FENCED_COMMITS),
        output,
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
