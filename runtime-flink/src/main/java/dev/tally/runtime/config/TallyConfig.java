package dev.tally.runtime.config;

import dev.tally.adapters.iceberg.IcebergSinkConfig;
import dev.tally.adapters.kafka.DeadLetterConfig;
import dev.tally.adapters.kafka.TransactionTimeoutCheck;
import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigReader;
import dev.tally.runtime.topology.AggregationSettings;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The whole validated configuration, one typed part per feature, each declaring and checking its
 * own keys. {@link #read(ConfigSource)} reports every problem at once, each with its key, unknown
 * keys included, and cross-checks the features against each other.
 */
public record TallyConfig(
    KafkaConfig kafka,
    IcebergSinkConfig iceberg,
    AggregationSettings aggregation,
    StateConfig state,
    CheckpointConfig checkpoints,
    RestartConfig restart,
    JobConfig job,
    AnomalyKeys.AnomalyConfig anomalies,
    Map<String, String> effective) {

  public TallyConfig {
    Objects.requireNonNull(kafka, "kafka");
    Objects.requireNonNull(iceberg, "iceberg");
    Objects.requireNonNull(aggregation, "aggregation");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(checkpoints, "checkpoints");
    Objects.requireNonNull(restart, "restart");
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(anomalies, "anomalies");
    // Sorted, so the start-up log lists keys in a stable, readable order.
    effective = Collections.unmodifiableMap(new TreeMap<>(effective));
  }

  /**
   * This configuration with another dead-letter sink, e.g. sized at start by {@code
   * DeadLetterSizing}.
   */
  public TallyConfig withDeadLetter(DeadLetterConfig deadLetter) {
    return new TallyConfig(
        new KafkaConfig(kafka.source(), deadLetter),
        iceberg,
        aggregation,
        state,
        checkpoints,
        restart,
        job,
        anomalies,
        effective);
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
    ConfigReader r = new ConfigReader(source.values());
    // The job's name is its identity on the cluster: per-job defaults derive from it.
    String jobName = r.get(JobConfig.NAME);
    KafkaConfig kafka = KafkaConfig.read(r, jobName);
    IcebergSinkConfig iceberg = IcebergSinkConfig.read(r, jobName);
    AggregationSettings aggregation = AggregationKeys.read(r);
    StateConfig state = StateConfig.read(r);
    CheckpointConfig checkpoints = CheckpointConfig.read(r);
    RestartConfig restart = RestartConfig.read(r);
    JobConfig job = JobConfig.read(r);
    AnomalyKeys.AnomalyConfig anomalies = AnomalyKeys.read(r, jobName);
    checkDeadLetterTransactionTimeout(r);
    checkTransactionalIdPrefixes(r, kafka, anomalies);
    List<String> problems = r.problems();
    if (!problems.isEmpty()) {
      throw new ConfigurationException(problems);
    }
    return new TallyConfig(
        kafka,
        iceberg,
        aggregation,
        state,
        checkpoints,
        restart,
        job,
        anomalies,
        r.effectiveConfiguration());
  }

  /**
   * The dead-letter transaction must outlive the checkpoints that may fail before one commits it,
   * and a restart after a failure between a checkpoint's completion and its commit. The broker's
   * maximum is checked at start against the live cluster; the rest can be checked here, from the
   * keys themselves, so it is reported even when other keys of either feature have problems.
   */
  private static void checkDeadLetterTransactionTimeout(ConfigReader r) {
    Duration timeout = r.get(DeadLetterConfig.TRANSACTION_TIMEOUT);
    Duration downtime = r.get(DeadLetterConfig.RECOVERABLE_DOWNTIME);
    Duration interval = r.get(CheckpointConfig.INTERVAL);
    Duration minPause = r.get(CheckpointConfig.MIN_PAUSE);
    Duration checkpointTimeout = r.get(CheckpointConfig.TIMEOUT);
    int tolerableFailures = r.get(CheckpointConfig.TOLERABLE_FAILURES);
    Duration maxBackoff = r.get(RestartConfig.MAX_BACKOFF);
    double jitter = r.get(RestartConfig.JITTER);
    if (allowed(DeadLetterConfig.TRANSACTION_TIMEOUT, timeout)
        && allowed(DeadLetterConfig.RECOVERABLE_DOWNTIME, downtime)
        && allowed(CheckpointConfig.INTERVAL, interval)
        && allowed(CheckpointConfig.MIN_PAUSE, minPause)
        && allowed(CheckpointConfig.TIMEOUT, checkpointTimeout)
        && allowed(CheckpointConfig.TOLERABLE_FAILURES, tolerableFailures)
        && allowed(RestartConfig.MAX_BACKOFF, maxBackoff)
        && allowed(RestartConfig.JITTER, jitter)) {
      var lifetime =
          new TransactionTimeoutCheck.Lifetime(
              interval,
              minPause,
              checkpointTimeout,
              tolerableFailures,
              RestartConfig.worstBackoff(maxBackoff, jitter),
              downtime);
      String keys =
          String.join(
              ", ",
              DeadLetterConfig.TRANSACTION_TIMEOUT.name(),
              DeadLetterConfig.RECOVERABLE_DOWNTIME.name(),
              CheckpointConfig.INTERVAL.name(),
              CheckpointConfig.MIN_PAUSE.name(),
              CheckpointConfig.TIMEOUT.name(),
              CheckpointConfig.TOLERABLE_FAILURES.name(),
              RestartConfig.MAX_BACKOFF.name(),
              RestartConfig.JITTER.name());
      TransactionTimeoutCheck.policyProblems(timeout, lifetime)
          .forEach(p -> r.problem(keys + ": " + p));
    }
  }

  /**
   * The anomaly producer's transactional-id prefix is derived from the job's name; a dead-letter
   * prefix set to the same value would make the job's two sinks fence and abort each other's
   * transactions. (The connector matches prefixes exactly, so only an equal one clashes.)
   */
  private static void checkTransactionalIdPrefixes(
      ConfigReader r, KafkaConfig kafka, AnomalyKeys.AnomalyConfig anomalies) {
    if (kafka == null || anomalies == null || !anomalies.enabled()) {
      return;
    }
    String deadLetters = kafka.deadLetter().transactionalIdPrefix();
    if (deadLetters.equals(anomalies.transactionalIdPrefix())) {
      r.problem(
          DeadLetterConfig.TRANSACTIONAL_ID_PREFIX.name()
              + ": "
              + deadLetters
              + " is the anomaly producer's prefix (`job.name` plus `-anomalies`): the two sinks"
              + " would fence each other's transactions; choose another");
    }
  }

  private static <T> boolean allowed(ConfigKey<T> key, T value) {
    return value != null && key.problems(value).isEmpty();
  }
}
