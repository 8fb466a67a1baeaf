package dev.tally.adapters.kafka;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.SourcedTransaction;
import java.util.EnumMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Splits the source's output: accepted transactions go on, rejections to a side output for the
 * dead-letter sink. Counts both (SPEC "Operation" metrics: records in, accepted, rejected by
 * reason) in the metric group {@code tally}.
 */
final class DecodedRecordRouter extends ProcessFunction<DecodedRecord, SourcedTransaction> {

  private static final long serialVersionUID = 1L;

  static final OutputTag<RejectedRecord> REJECTED =
      new OutputTag<>(
          "tally-decode-rejections",
          org.apache.flink.api.common.typeinfo.TypeInformation.of(RejectedRecord.class));

  private transient Counter recordsIn;
  private transient Counter accepted;
  private transient Map<RejectionReason, Counter> rejected;

  @Override
  public void open(OpenContext openContext) {
    MetricGroup tally = getRuntimeContext().getMetricGroup().addGroup("tally");
    recordsIn = tally.counter("recordsIn");
    accepted = tally.counter("accepted");
    rejected = new EnumMap<>(RejectionReason.class);
    MetricGroup byReason = tally.addGroup("rejected");
    for (RejectionReason reason : RejectionReason.values()) {
      rejected.put(reason, byReason.counter(reason.name()));
    }
  }

  @Override
  public void processElement(DecodedRecord record, Context ctx, Collector<SourcedTransaction> out) {
    recordsIn.inc();
    if (record.isAccepted()) {
      accepted.inc();
      out.collect(record.accepted());
    } else {
      rejected.get(record.rejected().reason()).inc();
      ctx.output(REJECTED, record.rejected());
    }
  }
}
