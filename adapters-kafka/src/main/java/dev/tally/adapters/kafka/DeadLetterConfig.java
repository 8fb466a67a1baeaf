package dev.tally.adapters.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The dead-letter sink's settings. Delivery is always exactly once (Kafka transactions committed on
 * completed checkpoints); consumers of the dead-letter topic must read with {@code
 * isolation.level=read_committed}.
 *
 * @param bootstrapServers the brokers of the dead-letter topic
 * @param topic the dead-letter topic (SPEC default: the source topic plus {@code .dlq})
 * @param transactionalIdPrefix prefix of the Kafka transactional ids; unique per job on a cluster,
 *     and stable across restarts of the same job so that lingering transactions are aborted on
 *     recovery
 * @param transactionTimeout {@code transaction.timeout.ms} of the producer: at most the broker's
 *     {@code transaction.max.timeout.ms}, and long enough to outlive the checkpoints that may fail
 *     before one commits (see {@link TransactionTimeoutCheck})
 * @param poolTransactionalIds use the connector's {@code POOLING} naming strategy, which reuses a
 *     small set of transactional ids instead of one per checkpoint (needs the broker's
 *     ListTransactions API)
 * @param producerProperties passed to the Kafka producer unchanged (security, tuning); must not set
 *     what the options own
 */
public record DeadLetterOptions(
    String bootstrapServers,
    String topic,
    String transactionalIdPrefix,
    Duration transactionTimeout,
    boolean poolTransactionalIds,
    Map<String, String> producerProperties) {

  /** Producer properties the options own. */
  static final Set<String> RESERVED_PRODUCER_PROPERTIES =
      Set.of(
          "bootstrap.servers",
          "key.serializer",
          "value.serializer",
          "transactional.id",
          "transaction.timeout.ms",
          "enable.idempotence");

  public DeadLetterOptions {
    producerProperties = Map.copyOf(producerProperties);
    List<String> problems = new ArrayList<>();
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      problems.add("bootstrapServers must be set");
    }
    if (topic == null || topic.isBlank()) {
      problems.add("topic must be set");
    }
    if (transactionalIdPrefix == null || transactionalIdPrefix.isBlank()) {
      problems.add("transactionalIdPrefix must be set");
    }
    if (transactionTimeout == null || transactionTimeout.toMillis() <= 0) {
      problems.add("transactionTimeout must be positive");
    }
    for (String key : producerProperties.keySet()) {
      if (RESERVED_PRODUCER_PROPERTIES.contains(key)) {
        problems.add("producer property " + key + " is set by the sink itself; use its own option");
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "invalid dead-letter options: " + String.join("; ", problems));
    }
  }

  /**
   * A builder; the topic defaults to {@code financial-transactions.dlq}, the timeout to 15 minutes.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** The SPEC's dead-letter topic for a source topic. */
  public static String defaultTopicFor(String sourceTopic) {
    return sourceTopic + ".dlq";
  }

  /** Builds {@link DeadLetterOptions}. */
  public static final class Builder {
    private String bootstrapServers;
    private String topic = defaultTopicFor(KafkaSourceOptions.DEFAULT_TOPIC);
    private String transactionalIdPrefix = "tally-dlq";
    // The broker's default transaction.max.timeout.ms; the connector's own default (1 h) is refused
    // by it.
    private Duration transactionTimeout = Duration.ofMinutes(15);
    private boolean poolTransactionalIds;
    private final Map<String, String> producerProperties = new LinkedHashMap<>();

    private Builder() {}

    public Builder bootstrapServers(String value) {
      this.bootstrapServers = Objects.requireNonNull(value, "bootstrapServers");
      return this;
    }

    public Builder topic(String value) {
      this.topic = Objects.requireNonNull(value, "topic");
      return this;
    }

    public Builder transactionalIdPrefix(String value) {
      this.transactionalIdPrefix = Objects.requireNonNull(value, "transactionalIdPrefix");
      return this;
    }

    public Builder transactionTimeout(Duration value) {
      this.transactionTimeout = Objects.requireNonNull(value, "transactionTimeout");
      return this;
    }

    public Builder poolTransactionalIds(boolean value) {
      this.poolTransactionalIds = value;
      return this;
    }

    public Builder producerProperty(String key, String value) {
      producerProperties.put(
          Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public Builder producerProperties(Map<String, String> values) {
      values.forEach(this::producerProperty);
      return this;
    }

    /**
     * @throws IllegalArgumentException naming every problem found
     */
    public DeadLetterOptions build() {
      return new DeadLetterOptions(
          bootstrapServers,
          topic,
          transactionalIdPrefix,
          transactionTimeout,
          poolTransactionalIds,
          producerProperties);
    }
  }
}
