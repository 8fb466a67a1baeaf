package dev.tally.adapters.kafka;

import java.io.IOException;
import java.io.Serializable;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.TwoPhaseCommittingStatefulSink.PrecommittingStatefulSinkWriter;

/**
 * The connector's Kafka writer, handed each record together with the last checkpoint this writer
 * has taken.
 *
 * <p>The exactly-once writer starts the transaction of checkpoint {@code n + 1} in {@code
 * snapshotState(n)}, so a record written after it is committed with a later checkpoint than {@code
 * n} and is in the state of none up to {@code n}. Counting here, in the writer, and not in an
 * operator in front of it, keeps that exact also when the two are not chained and an unaligned
 * checkpoint's barrier overtakes records queued between them.
 *
 * @param <IN> what the sink receives
 * @param <OUT> what the connector's writer serializes
 */
// "try": close() throws what the connector's writer throws, as SinkWriter declares it.
@SuppressWarnings("try")
final class CheckpointStampingWriter<IN, OUT>
    implements PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> {

  /**
   * Joins a record and the checkpoint its writer took last.
   *
   * @param <IN> what the sink receives
   * @param <OUT> what the connector's writer serializes
   */
  @FunctionalInterface
  interface Stamp<IN, OUT> extends Serializable {
    OUT stamp(IN record, long afterCheckpoint);
  }

  private final PrecommittingStatefulSinkWriter<OUT, KafkaWriterState, KafkaCommittable> delegate;
  private final Stamp<IN, OUT> stamp;
  private long lastCheckpoint;

  /**
   * @param delegate the connector's writer
   * @param stamp joins a record and the checkpoint id
   * @param restoredCheckpoint the checkpoint the writer was restored from, {@code 0} without state
   */
  CheckpointStampingWriter(
      PrecommittingStatefulSinkWriter<OUT, KafkaWriterState, KafkaCommittable> delegate,
      Stamp<IN, OUT> stamp,
      long restoredCheckpoint) {
    this.delegate = delegate;
    this.stamp = stamp;
    this.lastCheckpoint = restoredCheckpoint;
  }

  @Override
  public void write(IN element, Context context) throws IOException, InterruptedException {
    delegate.write(stamp.stamp(element, lastCheckpoint), context);
  }

  @Override
  public void writeWatermark(Watermark watermark) throws IOException, InterruptedException {
    delegate.writeWatermark(watermark);
  }

  @Override
  public void flush(boolean endOfInput) throws IOException, InterruptedException {
    delegate.flush(endOfInput);
  }

  @Override
  public Collection<KafkaCommittable> prepareCommit() throws IOException, InterruptedException {
    return delegate.prepareCommit();
  }

  @Override
  public List<KafkaWriterState> snapshotState(long checkpointId) throws IOException {
    List<KafkaWriterState> state = delegate.snapshotState(checkpointId);
    lastCheckpoint = checkpointId;
    return state;
  }

  @Override
  public void close() throws Exception {
    delegate.close();
  }
}
