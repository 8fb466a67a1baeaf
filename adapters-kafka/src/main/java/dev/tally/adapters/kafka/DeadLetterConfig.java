package dev.tally.adapters.kafka;

import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigPrefix;
import dev.tally.ports.config.ConfigReader;
import dev.tally.ports.config.InvalidConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The dead-letter sink's settings and the declarations of its keys. Delivery is always exactly once
 * (Kafka transactions committed on completed checkpoints); consumers of the dead-letter topic must
 * read with {@code isolation.level=read_committed}.
 *
 * @param bootstrapServers the brokers of the dead-letter topic: {@link
 *     KafkaSourceConfig#BOOTSTRAP_SERVERS}, the source's cluster
 * @param topic see {@link #TOPIC}
 * @param transactionalIdPrefix see {@link #TRANSACTIONAL_ID_PREFIX}; stable across restarts of the
 *     same job, so that lingering transactions are aborted on recovery
 * @param transactionTimeout see {@link #TRANSACTION_TIMEOUT} and {@link TransactionTimeoutCheck}
 * @param poolTransactionalIds see {@link #POOL_TRANSACTIONAL_IDS}: the connector's {@code POOLING}
 *     naming strategy instead of one id per checkpoint
 * @param producerProperties passed to the Kafka producer unchanged (security, tuning): the keys
 *     under {@link KafkaSourceConfig#PROPERTIES} overridden by those under {@link #PROPERTIES};
 *     must not set what the keys above own
 */
public record DeadLetterConfig(
    String bootstrapServers,
    String topic,
    String transactionalIdPrefix,
    Duration transactionTimeout,
    boolean poolTransactionalIds,
    Map<String, String> producerProperties) {

  /** The dead-letter topic. */
  public static final ConfigKey<String> TOPIC =
      ConfigKey.string("kafka.dead-letter.topic")
          .defaultDescribed("the first source topic plus `.dlq`")
          .required()
          .description("Dead-letter topic.");

  /** Prefix of the producer's transactional ids. */
  public static final ConfigKey<String> TRANSACTIONAL_ID_PREFIX =
      ConfigKey.string("kafka.dead-letter.transactional-id-prefix")
          .defaultValue("tally-dlq")
          .required()
          .description("Prefix of the dead-letter producer's transactional ids; unique per job.");

  /**
   * The producer's {@code transaction.timeout.ms}. The default is the broker's default {@code
   * transaction.max.timeout.ms}: the connector's own default (1 h) is refused by such a broker.
   */
  public static final ConfigKey<Duration> TRANSACTION_TIMEOUT =
      ConfigKey.duration("kafka.dead-letter.transaction-timeout")
          .defaultValue(Duration.ofMinutes(15))
          .required()
          .check(timeout -> timeout.toMillis() > 0, timeout -> "must be positive")
          .description(
              "The dead-letter producer's `transaction.timeout.ms`: at most the broker's"
                  + " `transaction.max.timeout.ms`, at least (tolerable checkpoint failures + 1) ×"
                  + " (interval + checkpoint timeout).");

  /** Reuse a small pool of transactional ids. */
  public static final ConfigKey<Boolean> POOL_TRANSACTIONAL_IDS =
      ConfigKey.bool("kafka.dead-letter.pool-transactional-ids")
          .defaultValue(false)
          .description(
              "Reuse a small pool of transactional ids (needs the broker's ListTransactions API).");

  /** Producer-only client properties. */
  public static final ConfigPrefix PROPERTIES =
      new ConfigPrefix(
          "kafka.dead-letter.properties.",
          "Producer-only client properties, overriding `kafka.properties.`.");

  /** Producer properties the keys own. */
  static final Set<String> RESERVED_PRODUCER_PROPERTIES =
      Set.of(
          "bootstrap.servers",
          "key.serializer",
          "value.serializer",
          "transactional.id",
          "transaction.timeout.ms",
          "enable.idempotence");

  public DeadLetterConfig {
    producerProperties = Map.copyOf(producerProperties);
    List<String> problems = new ArrayList<>();
    KafkaSourceConfig.BOOTSTRAP_SERVERS.check(bootstrapServers, problems);
    TOPIC.check(topic, problems);
    TRANSACTIONAL_ID_PREFIX.check(transactionalIdPrefix, problems);
    TRANSACTION_TIMEOUT.check(transactionTimeout, problems);
    for (String key : producerProperties.keySet()) {
      if (RESERVED_PRODUCER_PROPERTIES.contains(key)) {
        problems.add(
            KafkaSourceConfig.PROPERTIES.name()
                + key
                + ", "
                + PROPERTIES.name()
                + key
                + ": set by the sink itself; use its own key");
      }
    }
    InvalidConfigException.throwIfAny("dead-letter config", problems);
  }

  /** Reads the sink's keys; {@code null} when they have problems, which {@code r} records. */
  public static DeadLetterConfig read(ConfigReader r) {
    List<String> sourceTopics = r.get(KafkaSourceConfig.TOPICS);
    String topic =
        r.get(
            TOPIC,
            defaultTopicFor(
                sourceTopics.isEmpty()
                    ? KafkaSourceConfig.TOPICS.defaultValue().get(0)
                    : sourceTopics.get(0)));
    Map<String, String> producer = new LinkedHashMap<>(r.get(KafkaSourceConfig.PROPERTIES));
    producer.putAll(r.get(PROPERTIES));
    String bootstrap = r.get(KafkaSourceConfig.BOOTSTRAP_SERVERS);
    String prefix = r.get(TRANSACTIONAL_ID_PREFIX);
    Duration timeout = r.get(TRANSACTION_TIMEOUT);
    boolean pool = r.get(POOL_TRANSACTIONAL_IDS);
    return r.build(
        "kafka.dead-letter.*",
        () -> new DeadLetterConfig(bootstrap, topic, prefix, timeout, pool, producer));
  }

  /** This configuration with other producer properties, e.g. sized by {@link DeadLetterSizing}. */
  public DeadLetterConfig withProducerProperties(Map<String, String> properties) {
    return new DeadLetterConfig(
        bootstrapServers,
        topic,
        transactionalIdPrefix,
        transactionTimeout,
        poolTransactionalIds,
        properties);
  }

  /** A builder with every key's declared default; the topic is that of the default source topic. */
  public static Builder builder() {
    return new Builder();
  }

  /** The default dead-letter topic of a source topic: docs/behaviour.md "Rejections". */
  public static String defaultTopicFor(String sourceTopic) {
    return sourceTopic + ".dlq";
  }

  /** Builds {@link DeadLetterConfig} in code; setters reject {@code null}. */
  public static final class Builder {
    private String bootstrapServers;
    private String topic = defaultTopicFor(KafkaSourceConfig.TOPICS.defaultValue().get(0));
    private String transactionalIdPrefix = TRANSACTIONAL_ID_PREFIX.defaultValue();
    private Duration transactionTimeout = TRANSACTION_TIMEOUT.defaultValue();
    private boolean poolTransactionalIds = POOL_TRANSACTIONAL_IDS.defaultValue();
    private final Map<String, String> producerProperties = new LinkedHashMap<>();

    private Builder() {}

    /** See {@link KafkaSourceConfig#BOOTSTRAP_SERVERS}. */
    public Builder bootstrapServers(String value) {
      this.bootstrapServers = Objects.requireNonNull(value, "bootstrapServers");
      return this;
    }

    /** See {@link DeadLetterConfig#TOPIC}. */
    public Builder topic(String value) {
      this.topic = Objects.requireNonNull(value, "topic");
      return this;
    }

    /** See {@link DeadLetterConfig#TRANSACTIONAL_ID_PREFIX}. */
    public Builder transactionalIdPrefix(String value) {
      this.transactionalIdPrefix = Objects.requireNonNull(value, "transactionalIdPrefix");
      return this;
    }

    /** See {@link DeadLetterConfig#TRANSACTION_TIMEOUT}. */
    public Builder transactionTimeout(Duration value) {
      this.transactionTimeout = Objects.requireNonNull(value, "transactionTimeout");
      return this;
    }

    /** See {@link DeadLetterConfig#POOL_TRANSACTIONAL_IDS}. */
    public Builder poolTransactionalIds(boolean value) {
      this.poolTransactionalIds = value;
      return this;
    }

    /** Adds one producer property; see {@link DeadLetterConfig#producerProperties()}. */
    public Builder producerProperty(String key, String value) {
      producerProperties.put(
          Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** Adds producer properties; see {@link DeadLetterConfig#producerProperties()}. */
    public Builder producerProperties(Map<String, String> values) {
      values.forEach(this::producerProperty);
      return this;
    }

    /**
     * @throws InvalidConfigException naming every problem found, each with its key
     */
    public DeadLetterConfig build() {
      return new DeadLetterConfig(
          bootstrapServers,
          topic,
          transactionalIdPrefix,
          transactionTimeout,
          poolTransactionalIds,
          producerProperties);
    }
  }
}
