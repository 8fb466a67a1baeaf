package dev.tally.runtime.config;

import dev.tally.adapters.iceberg.IcebergSinkOptions;
import dev.tally.adapters.kafka.TransactionTimeoutCheck;
import dev.tally.runtime.topology.AggregationSettings;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The whole validated configuration, one typed part per feature. {@link #read(ConfigSource)}
 * reports every problem at once, each with its key, unknown keys included.
 */
public record TallyConfig(
    KafkaConfig kafka,
    IcebergSinkOptions iceberg,
    AggregationSettings aggregation,
    StateConfig state,
    CheckpointConfig checkpoints,
    RestartConfig restart,
    JobConfig job,
    Map<String, String> effective) {

  public TallyConfig {
    Objects.requireNonNull(kafka, "kafka");
    Objects.requireNonNull(iceberg, "iceberg");
    Objects.requireNonNull(aggregation, "aggregation");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(checkpoints, "checkpoints");
    Objects.requireNonNull(restart, "restart");
    Objects.requireNonNull(job, "job");
    // Sorted, so the start-up log lists keys in a stable, readable order.
    effective = Collections.unmodifiableMap(new TreeMap<>(effective));
  }

  /** The effective configuration as log text, one key per line, secrets masked. */
  public String describe() {
    StringBuilder text = new StringBuilder("Effective configuration (secrets masked):");
    effective.forEach((k, v) -> text.append("\n  ").append(k).append(" = ").append(v));
    return text.toString();
  }

  /**
   * Reads and validates every feature.
   *
   * @throws ConfigurationException listing every problem
   */
  public static TallyConfig read(ConfigSource source) {
    ConfigReader r = new ConfigReader(source);
    KafkaConfig kafka = KafkaConfig.read(r);
    IcebergSinkOptions iceberg = IcebergConfig.read(r);
    AggregationSettings aggregation = AggregationConfig.read(r);
    StateConfig state = StateConfig.read(r);
    CheckpointConfig checkpoints = CheckpointConfig.read(r);
    RestartConfig restart = RestartConfig.read(r);
    JobConfig job = JobConfig.read(r);
    if (kafka.transactionTimeout() != null
        && checkpoints.interval() != null
        && checkpoints.timeout() != null) {
      // The broker's maximum is checked at start against the live cluster; the policy can be
      // checked here.
      TransactionTimeoutCheck.policyProblems(
              kafka.transactionTimeout(),
              checkpoints.interval(),
              checkpoints.timeout(),
              checkpoints.tolerableFailures())
          .forEach(p -> r.problem(KafkaConfig.DLQ_TRANSACTION_TIMEOUT + ", checkpoints.*: " + p));
    }
    r.throwIfProblems();
    return new TallyConfig(
        kafka, iceberg, aggregation, state, checkpoints, restart, job, r.effectiveConfiguration());
  }
}
