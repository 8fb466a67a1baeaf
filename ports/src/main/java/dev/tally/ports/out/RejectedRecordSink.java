package dev.tally.ports.out;

import dev.tally.domain.rejection.RejectedRecord;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Where records that are not counted go: the dead-letter destination (docs/behaviour.md
 * "Rejections").
 *
 * <p>Contract: every record is delivered exactly once across failures, with its original key and
 * value bytes unchanged and the reason, message and source coordinates alongside; every operator
 * added has a stable uid.
 */
public interface RejectedRecordSink {

  /**
   * Attaches the sink to the end of {@code rejected}.
   *
   * @param rejected all rejections of the pipeline, from decoding and from aggregation
   */
  void attach(DataStream<RejectedRecord> rejected);
}
