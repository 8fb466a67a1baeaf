package dev.tally.runtime.job;

import com.google.inject.Inject;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.ports.in.TransactionSource;
import dev.tally.ports.in.TransactionStreams;
import dev.tally.ports.out.AnomalySink;
import dev.tally.ports.out.RejectedRecordSink;
import dev.tally.ports.out.SpendingSink;
import dev.tally.runtime.topology.AggregationSettings;
import dev.tally.runtime.topology.SpendingTopology;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The Tally job: ports around the topology. Knows no technology; Guice hands it the adapters chosen
 * by configuration.
 */
public final class TallyJob {

  private final Set<FlinkSettings> settings;
  private final TransactionSource source;
  private final SpendingSink spendingSink;
  private final RejectedRecordSink rejectedSink;
  private final AggregationSettings aggregation;
  private final Optional<AnomalyRule> anomalyRule;
  private final Set<AnomalySink> anomalySinks;

  @Inject
  TallyJob(
      Set<FlinkSettings> settings,
      TransactionSource source,
      SpendingSink spendingSink,
      RejectedRecordSink rejectedSink,
      AggregationSettings aggregation,
      Optional<AnomalyRule> anomalyRule,
      Set<AnomalySink> anomalySinks) {
    this.settings = settings;
    this.source = source;
    this.spendingSink = spendingSink;
    this.rejectedSink = rejectedSink;
    this.aggregation = aggregation;
    this.anomalyRule = anomalyRule;
    this.anomalySinks = anomalySinks;
  }

  /**
   * The Flink configuration every feature contributed: state backend, checkpoints, restarts,
   * pipeline rules.
   */
  public Configuration configuration() {
    Configuration flink = new Configuration();
    settings.forEach(s -> s.applyTo(flink));
    return flink;
  }

  /**
   * Adds the whole pipeline to {@code env}: source, topology, spending sink, dead letters, and the
   * anomaly sinks when anomalies are on.
   */
  public void attachTo(StreamExecutionEnvironment env) {
    TransactionStreams input = source.open(env);
    SpendingTopology.Output output = SpendingTopology.build(input, aggregation, anomalyRule);
    spendingSink.attach(output.aggregates());
    rejectedSink.attach(output.rejected());
    anomalySinks.forEach(sink -> sink.attach(output.anomalies()));
  }
}
