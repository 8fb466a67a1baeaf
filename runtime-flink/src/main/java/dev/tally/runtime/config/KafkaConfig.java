package dev.tally.runtime.config;

import dev.tally.adapters.kafka.DeadLetterOptions;
import dev.tally.adapters.kafka.KafkaSourceOptions;
import dev.tally.adapters.kafka.StartupMode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Kafka keys: the transaction source, input limits, watermarks and the dead-letter sink.
 *
 * @param source the source options
 * @param deadLetter the dead-letter options
 * @param transactionTimeout the dead-letter transaction timeout, kept apart for cross-checks even
 *     when the options above could not be built
 */
public record KafkaConfig(
    KafkaSourceOptions source, DeadLetterOptions deadLetter, Duration transactionTimeout) {

  /** Brokers to bootstrap from, {@code host:port[,host:port…]}. Required. */
  public static final String BOOTSTRAP_SERVERS = "kafka.bootstrap-servers";

  /**
   * Client properties for both the consumer and the dead-letter producer, e.g. {@code
   * kafka.properties.security.protocol: SASL_SSL}; secrets through {@code ${ENV}}.
   */
  public static final String PROPERTIES = "kafka.properties.";

  /** Topics to read, a list. Default {@code financial-transactions}. */
  public static final String TOPICS = "kafka.source.topics";

  /** A regular expression of topics to read, instead of {@link #TOPICS}. */
  public static final String TOPIC_PATTERN = "kafka.source.topic-pattern";

  /**
   * Consumer group; offsets are committed to it on completed checkpoints. Default {@code tally}.
   */
  public static final String GROUP_ID = "kafka.source.group-id";

  /**
   * Where to start without restored state: earliest, latest, committed, timestamp. Default latest
   * (the seed's).
   */
  public static final String STARTUP_MODE = "kafka.source.startup-mode";

  /**
   * With startup-mode committed: where to start where the group has no offset, earliest or latest.
   */
  public static final String COMMITTED_FALLBACK = "kafka.source.committed-fallback";

  /** With startup-mode timestamp: an ISO-8601 instant to start from. */
  public static final String STARTUP_TIMESTAMP = "kafka.source.startup-timestamp";

  /** Stop at the offsets that were latest at start (tests and backfills). Default false. */
  public static final String BOUNDED = "kafka.source.bounded";

  /** How often to discover new partitions and topics; 0 disables. Default 5m. */
  public static final String PARTITION_DISCOVERY_INTERVAL =
      "kafka.source.partition-discovery-interval";

  /** Consumer-only client properties, overriding {@link #PROPERTIES}. */
  public static final String SOURCE_PROPERTIES = "kafka.source.properties.";

  /** Values larger than this are rejected as MALFORMED. Default 1MiB. */
  public static final String MAX_RECORD_BYTES = "input.max-record-bytes";

  /**
   * How far event_timestamp may lie after the Kafka record timestamp before FUTURE_TIMESTAMP.
   * Default 1h.
   */
  public static final String MAX_FUTURE_SKEW = "input.max-future-skew";

  /** The watermark's bounded out-of-orderness per Kafka partition. Default 5s. */
  public static final String OUT_OF_ORDERNESS = "watermarks.out-of-orderness";

  /** A partition silent this long stops holding the watermark back; 0 disables. Default 30s. */
  public static final String IDLE_TIMEOUT = "watermarks.idle-timeout";

  /** Dead-letter topic. Default: the first source topic plus {@code .dlq}. */
  public static final String DLQ_TOPIC = "kafka.dead-letter.topic";

  /**
   * Prefix of the dead-letter producer's transactional ids; unique per job. Default {@code
   * tally-dlq}.
   */
  public static final String DLQ_TRANSACTIONAL_ID_PREFIX =
      "kafka.dead-letter.transactional-id-prefix";

  /**
   * The dead-letter producer's {@code transaction.timeout.ms}: at most the broker's {@code
   * transaction.max.timeout.ms}, at least (tolerable checkpoint failures + 1) × (interval +
   * checkpoint timeout). Default 15m.
   */
  public static final String DLQ_TRANSACTION_TIMEOUT = "kafka.dead-letter.transaction-timeout";

  /**
   * Reuse a small pool of transactional ids (needs the broker's ListTransactions API). Default
   * false.
   */
  public static final String DLQ_POOL_TRANSACTIONAL_IDS =
      "kafka.dead-letter.pool-transactional-ids";

  /** Producer-only client properties, overriding {@link #PROPERTIES}. */
  public static final String DLQ_PROPERTIES = "kafka.dead-letter.properties.";

  static KafkaConfig read(ConfigReader r) {
    String bootstrap = r.requiredString(BOOTSTRAP_SERVERS);
    Map<String, String> common = r.passThrough(PROPERTIES);
    Map<String, String> sourceProperties = new LinkedHashMap<>(common);
    sourceProperties.putAll(r.passThrough(SOURCE_PROPERTIES));
    Map<String, String> producerProperties = new LinkedHashMap<>(common);
    producerProperties.putAll(r.passThrough(DLQ_PROPERTIES));

    List<String> topics = r.list(TOPICS, List.of(KafkaSourceOptions.DEFAULT_TOPIC));
    String pattern = r.optionalString(TOPIC_PATTERN).orElse(null);
    StartupMode startupMode = r.enumValue(STARTUP_MODE, StartupMode.class, StartupMode.LATEST);
    StartupMode fallback = r.enumValue(COMMITTED_FALLBACK, StartupMode.class, StartupMode.EARLIEST);
    Instant startupTimestamp =
        r.optionalString(STARTUP_TIMESTAMP).map(text -> parseInstant(r, text)).orElse(null);
    boolean bounded = r.bool(BOUNDED, false);
    Duration discovery = r.duration(PARTITION_DISCOVERY_INTERVAL, Duration.ofMinutes(5));
    long maxRecordBytes = r.bytes(MAX_RECORD_BYTES, 1024 * 1024);
    r.check(
        maxRecordBytes > 0 && maxRecordBytes <= Integer.MAX_VALUE,
        MAX_RECORD_BYTES,
        "must be between 1 and 2GiB");
    Duration skew = r.duration(MAX_FUTURE_SKEW, Duration.ofHours(1));
    Duration outOfOrderness = r.duration(OUT_OF_ORDERNESS, Duration.ofSeconds(5));
    Duration idle = r.duration(IDLE_TIMEOUT, Duration.ofSeconds(30));

    String defaultDlq =
        DeadLetterOptions.defaultTopicFor(
            topics.isEmpty() ? KafkaSourceOptions.DEFAULT_TOPIC : topics.get(0));
    String dlqTopic = r.string(DLQ_TOPIC, defaultDlq);
    String prefix = r.string(DLQ_TRANSACTIONAL_ID_PREFIX, "tally-dlq");
    Duration transactionTimeout = r.duration(DLQ_TRANSACTION_TIMEOUT, Duration.ofMinutes(15));
    boolean pool = r.bool(DLQ_POOL_TRANSACTIONAL_IDS, false);
    if (pattern != null && r.optionalString(TOPICS).isPresent()) {
      r.problem(TOPICS + ", " + TOPIC_PATTERN + ": set one of them, not both");
    }

    if (bootstrap == null) {
      // Already reported; building the options would only repeat it under another name.
      return new KafkaConfig(null, null, transactionTimeout);
    }
    KafkaSourceOptions source =
        r.build(
            "kafka.source.*",
            () -> {
              KafkaSourceOptions.Builder b =
                  KafkaSourceOptions.builder()
                      .bootstrapServers(bootstrap)
                      .groupId(r.string(GROUP_ID, "tally"))
                      .startupMode(startupMode)
                      .committedFallback(fallback)
                      .bounded(bounded)
                      .partitionDiscoveryInterval(discovery)
                      .clientProperties(sourceProperties)
                      .outOfOrderness(outOfOrderness)
                      .idleTimeout(idle)
                      .maxRecordBytes(
                          (int) Math.min(Integer.MAX_VALUE, Math.max(1, maxRecordBytes)))
                      .maxFutureSkew(skew);
              if (pattern != null) {
                b.topicPattern(pattern);
              } else {
                b.topics(topics);
              }
              if (startupTimestamp != null) {
                b.startupTimestamp(startupTimestamp);
              }
              return b.build();
            });
    DeadLetterOptions deadLetter =
        r.build(
            "kafka.dead-letter.*",
            () ->
                DeadLetterOptions.builder()
                    .bootstrapServers(bootstrap)
                    .topic(dlqTopic)
                    .transactionalIdPrefix(prefix)
                    .transactionTimeout(transactionTimeout)
                    .poolTransactionalIds(pool)
                    .producerProperties(producerProperties)
                    .build());
    return new KafkaConfig(source, deadLetter, transactionTimeout);
  }

  private static Instant parseInstant(ConfigReader r, String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      r.check(
          false,
          STARTUP_TIMESTAMP,
          "\"" + text + "\" is no ISO-8601 instant such as 2026-11-29T00:00:00Z");
      return null;
    }
  }
}
