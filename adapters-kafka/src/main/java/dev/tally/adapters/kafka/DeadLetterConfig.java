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
 * @param continueAfterLostTransactions see {@link #CONTINUE_AFTER_LOST_TRANSACTIONS} and {@link
 *     LostTransactionGuard}
 */
public record DeadLetterConfig(
    String bootstrapServers,
    String topic,
    String transactionalIdPrefix,
    Duration transactionTimeout,
    boolean poolTransactionalIds,
    Map<String, String> producerProperties,
    boolean continueAfterLostTransactions) {

  /** The dead-letter topic. */
  public static final ConfigKey<String> TOPIC =
      ConfigKey.string("kafka.dead-letter.topic")
          .defaultDescribed("the first source topic plus `.dlq`")
          .required()
          .description("Dead-letter topic.");

  /** Prefix of the producer's transactional ids. */
  public static final ConfigKey<String> TRANSACTIONAL_ID_PREFIX =
      ConfigKey.string("kafka.dead-letter.transactional-id-prefix")
          .defaultDescribed("`job.name` plus `-dlq`")
          .required()
          .description(
              "Prefix of the dead-letter producer's transactional ids; must be unique per job on"
                  + " the cluster (two jobs with one prefix fence each other), as the default is"
                  + " for jobs of different names.");

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
                  + " (interval + min pause + checkpoint timeout) + the restart strategy's"
                  + " largest delay (max backoff × (1 + jitter)) + the recoverable downtime.");

  /**
   * The longest outage the dead letters of a completed checkpoint survive: how long the job may
   * stay down (or the broker unreachable) between a checkpoint's completion and the restored job's
   * commit of its transaction. The transaction timeout must cover it ({@link
   * TransactionTimeoutCheck}). The default covers a restart on another TaskManager; it leaves the
   * default timeout room for checkpoint intervals up to about 50 s with the default policy.
   */
  public static final ConfigKey<Duration> RECOVERABLE_DOWNTIME =
      ConfigKey.duration("kafka.dead-letter.recoverable-downtime")
          .defaultValue(Duration.ofMinutes(2))
          .required()
          .description(
              "The longest outage (job down, broker unreachable) between a checkpoint's completion"
                  + " and its dead-letter commit that loses no dead letters; checked against"
                  + " `kafka.dead-letter.transaction-timeout` at start. Longer, and the broker has"
                  + " aborted the transaction: the job fails (see"
                  + " `kafka.dead-letter.continue-after-lost-transactions`).");

  /** Reuse a small pool of transactional ids. */
  public static final ConfigKey<Boolean> POOL_TRANSACTIONAL_IDS =
      ConfigKey.bool("kafka.dead-letter.pool-transactional-ids")
          .defaultValue(false)
          .description(
              "Reuse a small pool of transactional ids (needs the broker's ListTransactions API).");

  /**
   * Whether the job goes on after the broker has lost a completed checkpoint's dead-letter
   * transaction ({@link LostTransactionGuard}): the operator's acknowledgement of the loss, for the
   * resume after the job failed on it.
   */
  public static final ConfigKey<Boolean> CONTINUE_AFTER_LOST_TRANSACTIONS =
      ConfigKey.bool("kafka.dead-letter.continue-after-lost-transactions")
          .defaultValue(false)
          .description(
              "When the broker has aborted the dead-letter transaction of a completed checkpoint"
                  + " (its dead letters are lost), go on after counting it in the metric"
                  + " `tally.deadletters.lost-transactions` and logging an ERROR, instead of failing"
                  + " the job without restarts. Set it to resume a job that failed so, then unset"
                  + " it.");

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

  /**
   * Reads the sink's keys; {@code null} when they have problems, which {@code r} records.
   *
   * @param jobName the job's name, of which the transactional-id prefix is derived by default
   */
  public static DeadLetterConfig read(ConfigReader r, String jobName) {
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
    String prefix = r.get(TRANSACTIONAL_ID_PREFIX, defaultTransactionalIdPrefixFor(jobName));
    Duration timeout = r.get(TRANSACTION_TIMEOUT);
    boolean pool = r.get(POOL_TRANSACTIONAL_IDS);
    boolean continueAfterLoss = r.get(CONTINUE_AFTER_LOST_TRANSACTIONS);
    return r.build(
        "kafka.dead-letter.*",
        () ->
            new DeadLetterConfig(
                bootstrap, topic, prefix, timeout, pool, producer, continueAfterLoss));
  }

  /** This configuration with other producer properties, e.g. sized by {@link DeadLetterSizing}. */
  public DeadLetterConfig withProducerProperties(Map<String, String> properties) {
    return new DeadLetterConfig(
        bootstrapServers,
        topic,
        transactionalIdPrefix,
        transactionTimeout,
        poolTransactionalIds,
        properties,
        continueAfterLostTransactions);
  }

  /**
   * The default transactional-id prefix of a job: its name plus {@code -dlq}, so that jobs of
   * different names never fence each other's dead-letter transactions (docs/behaviour.md "Several
   * jobs on one cluster").
   */
  public static String defaultTransactionalIdPrefixFor(String jobName) {
    return jobName + "-dlq";
  }

  /**
   * A builder with every key's declared default; the topic is that of the default source topic, the
   * transactional-id prefix that of a job named {@value KafkaSourceConfig#DEFAULT_JOB_NAME}.
   */
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
    private String transactionalIdPrefix =
        defaultTransactionalIdPrefixFor(KafkaSourceConfig.DEFAULT_JOB_NAME);
    private Duration transactionTimeout = TRANSACTION_TIMEOUT.defaultValue();
    private boolean poolTransactionalIds = POOL_TRANSACTIONAL_IDS.defaultValue();
    private final Map<String, String> producerProperties = new LinkedHashMap<>();
    private boolean continueAfterLostTransactions = CONTINUE_AFTER_LOST_TRANSACTIONS.defaultValue();

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

    /** See {@link DeadLetterConfig#CONTINUE_AFTER_LOST_TRANSACTIONS}. */
    public Builder continueAfterLostTransactions(boolean value) {
      this.continueAfterLostTransactions = value;
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
          producerProperties,
          continueAfterLostTransactions);
    }
  }
}
