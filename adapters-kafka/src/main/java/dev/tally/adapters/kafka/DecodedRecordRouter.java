package dev.tally.adapters.kafka;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.ports.types.TallyTypes;
import java.util.EnumMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Splits the source's output: accepted transactions go on, rejections to a side output for the
 * dead-letter sink. Counts both (docs/behaviour.md "Metrics": records in, accepted, rejected by
 * reason) in the metric group {@code tally}.
 *
 * <p>Its output crosses the keyed shuffle, so it declares the dedicated serializer of {@link
 * TallyTypes#SOURCED_TRANSACTION} rather than leaving the type to Flink's reflective record
 * serializer.
 */
final class DecodedRecordRouter extends ProcessFunction<DecodedRecord, SourcedTransaction>
    implements ResultTypeQueryable<SourcedTransaction> {

  private static final long serialVersionUID = 1L;

  static final OutputTag<RejectedRecord> REJECTED =
      new OutputTag<>("tally-decode-rejections", TypeInformation.of(RejectedRecord.class));

  private transient Counter recordsIn;
  private transient Counter accepted;
  private transient Map<RejectionReason, Counter> rejected;

  @Override
  public void open(OpenContext openContext) {
    MetricGroup tally = getRuntimeContext().getMetricGroup().addGroup("tally");
    recordsIn = tally.counter("recordsIn");
    accepted = tally.counter("accepted");
    rejected = new EnumMap<>(RejectionReason.class);
    // The reason as a variable (a Prometheus label), so one series name serves every reason.
    for (RejectionReason reason : RejectionReason.values()) {
      rejected.put(reason, tally.addGroup("reason", reason.name()).counter("rejected"));
    }
  }

  @Override
  public TypeInformation<SourcedTransaction> getProducedType() {
    return TallyTypes.SOURCED_TRANSACTION;
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
