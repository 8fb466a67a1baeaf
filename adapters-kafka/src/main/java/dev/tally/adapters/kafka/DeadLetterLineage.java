package dev.tally.adapters.kafka;

import dev.tally.domain.rejection.RejectedRecord;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Gives every rejection the lineage of the job state, and refuses at start a restore that would
 * send dead letters again ({@link DeadLetterRollback}).
 *
 * <p>The lineage is an id drawn when the job graph of a job without state is built, the same for
 * every subtask, and kept in this operator's state (union operator state {@code
 * dead-letter-lineage}) from then on: every job restored from that state, and every restore of one
 * savepoint, carries it. A restored state without it (written before it was recorded) starts a new
 * lineage; its older dead letters carry none and are not checked.
 *
 * <p>When a job starts from such state, subtask 0 reads the dead-letter topic before any record
 * passes; a refusal is Flink's {@link SuppressRestartsException}, so the job ends {@code FAILED} at
 * once. A failover (a later attempt of the tasks) restores the job's latest completed checkpoint
 * and is not checked, so recovery does not wait for the topic.
 */
final class DeadLetterLineage extends AbstractStreamOperator<LineagedRejection>
    implements OneInputStreamOperator<RejectedRecord, LineagedRejection> {

  private static final long serialVersionUID = 1L;

  private static final ListStateDescriptor<String> LINEAGE =
      new ListStateDescriptor<>("dead-letter-lineage", StringSerializer.INSTANCE);

  private final String topic;
  private final Map<String, String> clientProperties;
  private final String newLineage;

  private transient String lineage;
  private transient ListState<String> state;

  /**
   * @param topic the dead-letter topic
   * @param clientProperties how to read it: the producer's connection and security settings
   * @param newLineage the lineage of a job that starts without state
   */
  DeadLetterLineage(String topic, Map<String, String> clientProperties, String newLineage) {
    this.topic = topic;
    this.clientProperties = Map.copyOf(clientProperties);
    this.newLineage = newLineage;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    state = context.getOperatorStateStore().getUnionListState(LINEAGE);
    Iterator<String> restored = state.get().iterator();
    boolean fromState = restored.hasNext();
    lineage = fromState ? restored.next() : newLineage;
    // A failover restores the latest completed checkpoint, which no committed dead letter follows;
    // only a job's first attempt can start from an older state.
    if (fromState
        && context.getRestoredCheckpointId().isPresent()
        && getRuntimeContext().getTaskInfo().getAttemptNumber() == 0
        && getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
      long checkpoint = context.getRestoredCheckpointId().getAsLong();
      Optional<String> refusal =
          DeadLetterTail.refusal(topic, clientProperties, lineage, checkpoint);
      if (refusal.isPresent()) {
        throw new SuppressRestartsException(
            new IllegalStateException("This restore cannot go on exactly: " + refusal.get()));
      }
    }
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    state.update(List.of(lineage));
  }

  @Override
  public void processElement(StreamRecord<RejectedRecord> element) {
    output.collect(element.replace(new LineagedRejection(element.getValue(), lineage)));
  }
}
