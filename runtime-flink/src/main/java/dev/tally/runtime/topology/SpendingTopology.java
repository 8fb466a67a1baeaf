package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.Anomaly;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.ports.in.TransactionStreams;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.transformations.WithBoundedness;

/**
 * The stream graph of docs/behaviour.md "Aggregation", "Rejections" and "Anomalies" as one function
 * of its inputs: transactions and decode-time rejections in, windowed aggregates, every rejection
 * and the anomalies out. No sources, sinks or configuration files: the job wires ports around it,
 * and tests feed it bounded streams.
 */
public final class SpendingTopology {

  /**
   * Stable uid of the keyed dedupe-and-window operator: its state is the job's aggregation state.
   */
  public static final String AGGREGATOR_UID = "tally-spending-aggregator";

  private SpendingTopology() {}

  /**
   * The outputs of the topology.
   *
   * @param anomalies the anomalous transactions; empty when anomalies are not detected
   */
  public record Output(
      DataStream<WindowedSpending> aggregates,
      DataStream<RejectedRecord> rejected,
      DataStream<Anomaly> anomalies) {
    public Output {
      Objects.requireNonNull(aggregates, "aggregates");
      Objects.requireNonNull(rejected, "rejected");
      Objects.requireNonNull(anomalies, "anomalies");
    }
  }

  /** Builds the aggregation onto the given streams, without anomaly detection. */
  public static Output build(TransactionStreams input, AggregationSettings settings) {
    return build(input, settings, Optional.empty());
  }

  /**
   * Builds the aggregation onto the given streams.
   *
   * @param input accepted transactions with event-time watermarks, and the records rejected while
   *     decoding
   * @param settings windows, lateness, dedupe retention, early firing
   * @param anomalyRule the anomaly rule; empty for no anomaly detection (docs/behaviour.md
   *     "Anomalies"), which the same operator does, on the events it counts
   */
  public static Output build(
      TransactionStreams input, AggregationSettings settings, Optional<AnomalyRule> anomalyRule) {
    SingleOutputStreamOperator<WindowedSpending> aggregates =
        input
            .accepted()
            .keyBy(new ByUser(), Types.STRING)
            .transform(
                "Dedupe and aggregate spending per user, currency and window",
                TypeInformation.of(WindowedSpending.class),
                new SpendingAggregatorOperator(
                    new SpendingAggregator(
                        settings,
                        anomalyRule.orElse(null),
                        bounded(input.accepted().getTransformation())),
                    settings.writeBackUsers()))
            .uid(AGGREGATOR_UID);
    DataStream<RejectedRecord> rejected =
        input.rejected().union(aggregates.getSideOutput(SpendingAggregator.REJECTED));
    return new Output(aggregates, rejected, aggregates.getSideOutput(SpendingAggregator.ANOMALIES));
  }

  /**
   * Whether every source the stream comes from ends: a bounded run may resume from state taken
   * after its end ({@link RestoreGuard}). A source that does not say is taken as unbounded, which
   * refuses such a restore at start.
   */
  static boolean bounded(Transformation<?> stream) {
    if (stream instanceof WithBoundedness source) {
      return source.getBoundedness() == Boundedness.BOUNDED;
    }
    List<Transformation<?>> inputs = stream.getInputs();
    return !inputs.isEmpty() && inputs.stream().allMatch(SpendingTopology::bounded);
  }

  /**
   * Keys by user: dedupe is per user across currencies, and the aggregate key starts with the user.
   */
  static final class ByUser implements KeySelector<SourcedTransaction, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(SourcedTransaction value) {
      return value.transaction().userId();
    }
  }
}
