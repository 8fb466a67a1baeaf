package dev.tally.adapters.kafka;

import dev.tally.domain.transaction.TransactionValidator;
import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigPrefix;
import dev.tally.ports.config.ConfigReader;
import dev.tally.ports.config.InvalidConfigException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Everything the Kafka transaction source needs, and the declarations of its keys. The constructor
 * checks every value against its key and the keys against each other, reporting every problem at
 * once, whether the config is {@linkplain #read read} from configuration or {@linkplain #builder()
 * built} in code.
 *
 * @param bootstrapServers see {@link #BOOTSTRAP_SERVERS}
 * @param topics see {@link #TOPICS}; empty when {@code topicPattern} is used
 * @param topicPattern see {@link #TOPIC_PATTERN}; {@code null} when {@code topics} is used
 * @param groupId see {@link #GROUP_ID} (offsets serve monitoring and {@link StartupMode#COMMITTED};
 *     the job's own progress lives in its checkpoints)
 * @param startupMode see {@link #STARTUP_MODE}
 * @param committedFallback see {@link #COMMITTED_FALLBACK}
 * @param startupTimestamp see {@link #STARTUP_TIMESTAMP}
 * @param bounded see {@link #BOUNDED}; the final watermark then fires every window
 * @param partitionDiscoveryInterval see {@link #PARTITION_DISCOVERY_INTERVAL}
 * @param clientProperties passed to the Kafka consumer unchanged (security, SASL/SSL, tuning): the
 *     keys under {@link #PROPERTIES} overridden by those under {@link #SOURCE_PROPERTIES}; must not
 *     set what the keys above own
 * @param outOfOrderness see {@link #OUT_OF_ORDERNESS}
 * @param idleTimeout see {@link #IDLE_TIMEOUT}
 * @param maxRecordBytes see {@link #MAX_RECORD_BYTES}
 * @param maxFutureSkew see {@link #MAX_FUTURE_SKEW}
 */
public record KafkaSourceConfig(
    String bootstrapServers,
    List<String> topics,
    String topicPattern,
    String groupId,
    StartupMode startupMode,
    StartupMode committedFallback,
    Instant startupTimestamp,
    boolean bounded,
    Duration partitionDiscoveryInterval,
    Map<String, String> clientProperties,
    Duration outOfOrderness,
    Duration idleTimeout,
    int maxRecordBytes,
    Duration maxFutureSkew) {

  /**
   * The name of the job the {@linkplain #builder() builders} of the Kafka settings derive their
   * per-job defaults from; the job's {@code job.name} key has the same default.
   */
  public static final String DEFAULT_JOB_NAME = "tally";

  /** The brokers; shared with the dead-letter sink, which writes to the same cluster. */
  public static final ConfigKey<String> BOOTSTRAP_SERVERS =
      ConfigKey.string("kafka.bootstrap-servers")
          .required()
          .description("Brokers to bootstrap from, `host:port[,host:port…]`.");

  /** Client properties of both the consumer and the dead-letter producer. */
  public static final ConfigPrefix PROPERTIES =
      new ConfigPrefix(
          "kafka.properties.",
          "Client properties for both the consumer and the dead-letter producer, e.g."
              + " `kafka.properties.security.protocol: SASL_SSL`; secrets through `${ENV}`.");

  /** The topics to read. */
  public static final ConfigKey<List<String>> TOPICS =
      ConfigKey.list("kafka.source.topics")
          .defaultValue(List.of("financial-transactions"))
          .description("Topics to read, a list.");

  /** A pattern of topics to read, instead of {@link #TOPICS}. */
  public static final ConfigKey<String> TOPIC_PATTERN =
      ConfigKey.string("kafka.source.topic-pattern")
          .check(KafkaSourceConfig::isRegularExpression, pattern -> "is no regular expression")
          .description("A regular expression of topics to read, instead of `kafka.source.topics`.");

  /** The consumer group. */
  public static final ConfigKey<String> GROUP_ID =
      ConfigKey.string("kafka.source.group-id")
          .defaultDescribed("`job.name`")
          .required()
          .description(
              "Consumer group; offsets are committed to it on completed checkpoints. Per job by"
                  + " default, so that two jobs of different names never share one.");

  /** Where to start without restored state. */
  public static final ConfigKey<StartupMode> STARTUP_MODE =
      ConfigKey.enumeration("kafka.source.startup-mode", StartupMode.class)
          .defaultValue(StartupMode.LATEST)
          .required()
          .description(
              "Where to start without restored state: earliest, latest, committed, timestamp.");

  /** With {@link StartupMode#COMMITTED}: where the group has no offset. */
  public static final ConfigKey<StartupMode> COMMITTED_FALLBACK =
      ConfigKey.enumeration("kafka.source.committed-fallback", StartupMode.class)
          .defaultValue(StartupMode.EARLIEST)
          .description(
              "With startup-mode committed: where to start where the group has no offset,"
                  + " earliest or latest.");

  /** With {@link StartupMode#TIMESTAMP}: the instant to start from. */
  public static final ConfigKey<Instant> STARTUP_TIMESTAMP =
      ConfigKey.instant("kafka.source.startup-timestamp")
          .description("With startup-mode timestamp: an ISO-8601 instant to start from.");

  /** Stop at the offsets that were latest at start. */
  public static final ConfigKey<Boolean> BOUNDED =
      ConfigKey.bool("kafka.source.bounded")
          .defaultValue(false)
          .description("Stop at the offsets that were latest at start (tests and backfills).");

  /** How often to look for new partitions and matching topics. */
  public static final ConfigKey<Duration> PARTITION_DISCOVERY_INTERVAL =
      ConfigKey.duration("kafka.source.partition-discovery-interval")
          .defaultValue(Duration.ofMinutes(5))
          .required()
          .description("How often to discover new partitions and topics; 0 disables.");

  /** Consumer-only client properties. */
  public static final ConfigPrefix SOURCE_PROPERTIES =
      new ConfigPrefix(
          "kafka.source.properties.",
          "Consumer-only client properties, overriding `kafka.properties.`.");

  /** Values larger than this are rejected as {@code MALFORMED}. */
  public static final ConfigKey<Integer> MAX_RECORD_BYTES =
      ConfigKey.arrayBytes("input.max-record-bytes")
          .defaultValue(TransactionDecoder.DEFAULT_MAX_RECORD_BYTES)
          .atLeast(1)
          .description("Values larger than this are rejected as MALFORMED.");

  /** How far an event time may lie after its record's timestamp. */
  public static final ConfigKey<Duration> MAX_FUTURE_SKEW =
      ConfigKey.duration("input.max-future-skew")
          .defaultValue(TransactionValidator.DEFAULT_MAX_FUTURE_SKEW)
          .required()
          .description(
              "How far event_timestamp may lie after the Kafka record timestamp before"
                  + " FUTURE_TIMESTAMP.");

  /** The watermark's bound. */
  public static final ConfigKey<Duration> OUT_OF_ORDERNESS =
      ConfigKey.duration("watermarks.out-of-orderness")
          .defaultValue(Duration.ofSeconds(5))
          .required()
          .description("The watermark's bounded out-of-orderness per Kafka partition.");

  /**
   * When a partition that sends no accepted record (nothing, or only rejected records) stops
   * holding the watermark back.
   */
  public static final ConfigKey<Duration> IDLE_TIMEOUT =
      ConfigKey.duration("watermarks.idle-timeout")
          .defaultValue(Duration.ofSeconds(30))
          .required()
          .description(
              "A partition without an accepted record this long stops holding the watermark back;"
                  + " 0 disables.");

  /**
   * Consumer properties the keys above own; setting them through {@code clientProperties} is an
   * error.
   */
  static final Set<String> RESERVED_CLIENT_PROPERTIES =
      Set.of(
          "bootstrap.servers",
          "group.id",
          "key.deserializer",
          "value.deserializer",
          "auto.offset.reset",
          "enable.auto.commit",
          "partition.discovery.interval.ms");

  public KafkaSourceConfig {
    topics = List.copyOf(topics);
    clientProperties = Map.copyOf(clientProperties);
    List<String> problems = new ArrayList<>();
    BOOTSTRAP_SERVERS.check(bootstrapServers, problems);
    if (!topics.isEmpty() && topicPattern != null) {
      problems.add(TOPICS + ", " + TOPIC_PATTERN + ": set one of them, not both");
    } else if (topics.isEmpty() && topicPattern == null) {
      problems.add(TOPICS + ", " + TOPIC_PATTERN + ": set one of them");
    }
    if (topics.stream().anyMatch(String::isBlank)) {
      problems.add(TOPICS + ": must not contain a blank name");
    }
    TOPIC_PATTERN.check(topicPattern, problems);
    GROUP_ID.check(groupId, problems);
    STARTUP_MODE.check(startupMode, problems);
    if (startupMode == StartupMode.COMMITTED
        && committedFallback != StartupMode.EARLIEST
        && committedFallback != StartupMode.LATEST) {
      problems.add(
          COMMITTED_FALLBACK + ": must be earliest or latest with " + STARTUP_MODE + " committed");
    }
    if (startupMode == StartupMode.TIMESTAMP && startupTimestamp == null) {
      problems.add(STARTUP_TIMESTAMP + ": must be set with " + STARTUP_MODE + " timestamp");
    }
    PARTITION_DISCOVERY_INTERVAL.check(partitionDiscoveryInterval, problems);
    OUT_OF_ORDERNESS.check(outOfOrderness, problems);
    IDLE_TIMEOUT.check(idleTimeout, problems);
    MAX_RECORD_BYTES.check(maxRecordBytes, problems);
    MAX_FUTURE_SKEW.check(maxFutureSkew, problems);
    for (String key : clientProperties.keySet()) {
      if (RESERVED_CLIENT_PROPERTIES.contains(key)) {
        problems.add(
            PROPERTIES.name()
                + key
                + ", "
                + SOURCE_PROPERTIES.name()
                + key
                + ": set by the source itself; use its own key");
      }
    }
    InvalidConfigException.throwIfAny("Kafka source config", problems);
  }

  /**
   * Reads the source's keys; {@code null} when they have problems, which {@code r} records.
   *
   * @param jobName the job's name, of which the consumer group is derived by default
   */
  public static KafkaSourceConfig read(ConfigReader r, String jobName) {
    String pattern = r.get(TOPIC_PATTERN);
    // A pattern replaces the default topic list, not one set beside it.
    List<String> topics = pattern == null || r.isSet(TOPICS) ? r.get(TOPICS) : List.of();
    Instant timestamp = r.get(STARTUP_TIMESTAMP);
    Map<String, String> client = new LinkedHashMap<>(r.get(PROPERTIES));
    client.putAll(r.get(SOURCE_PROPERTIES));
    String bootstrap = r.get(BOOTSTRAP_SERVERS);
    StartupMode startupMode = r.get(STARTUP_MODE);
    StartupMode fallback = r.get(COMMITTED_FALLBACK);
    boolean bounded = r.get(BOUNDED);
    Duration discovery = r.get(PARTITION_DISCOVERY_INTERVAL);
    String groupId = r.get(GROUP_ID, defaultGroupIdFor(jobName));
    Duration outOfOrderness = r.get(OUT_OF_ORDERNESS);
    Duration idle = r.get(IDLE_TIMEOUT);
    int maxRecordBytes = r.get(MAX_RECORD_BYTES);
    Duration skew = r.get(MAX_FUTURE_SKEW);
    return r.build(
        "kafka.source.*",
        () ->
            new KafkaSourceConfig(
                bootstrap,
                topics,
                pattern,
                groupId,
                startupMode,
                fallback,
                timestamp,
                bounded,
                discovery,
                client,
                outOfOrderness,
                idle,
                maxRecordBytes,
                skew));
  }

  /**
   * The default consumer group of a job: its name, so that jobs of different names never commit
   * offsets to one group (docs/behaviour.md "Several jobs on one cluster").
   */
  public static String defaultGroupIdFor(String jobName) {
    return jobName;
  }

  /**
   * A builder with every key's declared default; the consumer group is that of a job named {@value
   * #DEFAULT_JOB_NAME}.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** The compiled topic pattern, when one is used. */
  public Optional<Pattern> compiledTopicPattern() {
    return Optional.ofNullable(topicPattern).map(Pattern::compile);
  }

  /** The validator these settings configure. */
  public TransactionValidator validator() {
    return new TransactionValidator(maxFutureSkew);
  }

  private static boolean isRegularExpression(String text) {
    try {
      Pattern.compile(text);
      return true;
    } catch (PatternSyntaxException e) {
      return false;
    }
  }

  /**
   * Builds {@link KafkaSourceConfig} in code; each setter sets the key of the same name and rejects
   * {@code null}, {@link #build()} checks the whole.
   */
  public static final class Builder {
    private String bootstrapServers;
    private List<String> topics = TOPICS.defaultValue();
    private String topicPattern;
    private String groupId = defaultGroupIdFor(DEFAULT_JOB_NAME);
    private StartupMode startupMode = STARTUP_MODE.defaultValue();
    private StartupMode committedFallback = COMMITTED_FALLBACK.defaultValue();
    private Instant startupTimestamp;
    private boolean bounded = BOUNDED.defaultValue();
    private Duration partitionDiscoveryInterval = PARTITION_DISCOVERY_INTERVAL.defaultValue();
    private final Map<String, String> clientProperties = new LinkedHashMap<>();
    private Duration outOfOrderness = OUT_OF_ORDERNESS.defaultValue();
    private Duration idleTimeout = IDLE_TIMEOUT.defaultValue();
    private int maxRecordBytes = MAX_RECORD_BYTES.defaultValue();
    private Duration maxFutureSkew = MAX_FUTURE_SKEW.defaultValue();

    private Builder() {}

    /** See {@link KafkaSourceConfig#BOOTSTRAP_SERVERS}. */
    public Builder bootstrapServers(String value) {
      this.bootstrapServers = Objects.requireNonNull(value, "bootstrapServers");
      return this;
    }

    /** Reads these topics (replaces the default and any pattern). */
    public Builder topics(List<String> value) {
      this.topics = List.copyOf(Objects.requireNonNull(value, "topics"));
      this.topicPattern = null;
      return this;
    }

    /** Reads every topic matching this regular expression (replaces any topic list). */
    public Builder topicPattern(String value) {
      this.topicPattern = Objects.requireNonNull(value, "topicPattern");
      this.topics = List.of();
      return this;
    }

    /** See {@link KafkaSourceConfig#GROUP_ID}. */
    public Builder groupId(String value) {
      this.groupId = Objects.requireNonNull(value, "groupId");
      return this;
    }

    /** See {@link KafkaSourceConfig#STARTUP_MODE}. */
    public Builder startupMode(StartupMode value) {
      this.startupMode = Objects.requireNonNull(value, "startupMode");
      return this;
    }

    /** See {@link KafkaSourceConfig#COMMITTED_FALLBACK}. */
    public Builder committedFallback(StartupMode value) {
      this.committedFallback = Objects.requireNonNull(value, "committedFallback");
      return this;
    }

    /** Starts from this instant; implies {@link StartupMode#TIMESTAMP}. */
    public Builder startupTimestamp(Instant value) {
      this.startupTimestamp = Objects.requireNonNull(value, "startupTimestamp");
      this.startupMode = StartupMode.TIMESTAMP;
      return this;
    }

    /** See {@link KafkaSourceConfig#BOUNDED}. */
    public Builder bounded(boolean value) {
      this.bounded = value;
      return this;
    }

    /** See {@link KafkaSourceConfig#PARTITION_DISCOVERY_INTERVAL}. */
    public Builder partitionDiscoveryInterval(Duration value) {
      this.partitionDiscoveryInterval = Objects.requireNonNull(value, "partitionDiscoveryInterval");
      return this;
    }

    /** Adds one consumer property; see {@link KafkaSourceConfig#clientProperties()}. */
    public Builder clientProperty(String key, String value) {
      clientProperties.put(
          Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** Adds consumer properties; see {@link KafkaSourceConfig#clientProperties()}. */
    public Builder clientProperties(Map<String, String> values) {
      values.forEach(this::clientProperty);
      return this;
    }

    /** See {@link KafkaSourceConfig#OUT_OF_ORDERNESS}. */
    public Builder outOfOrderness(Duration value) {
      this.outOfOrderness = Objects.requireNonNull(value, "outOfOrderness");
      return this;
    }

    /** See {@link KafkaSourceConfig#IDLE_TIMEOUT}. */
    public Builder idleTimeout(Duration value) {
      this.idleTimeout = Objects.requireNonNull(value, "idleTimeout");
      return this;
    }

    /** See {@link KafkaSourceConfig#MAX_RECORD_BYTES}. */
    public Builder maxRecordBytes(int value) {
      this.maxRecordBytes = value;
      return this;
    }

    /** See {@link KafkaSourceConfig#MAX_FUTURE_SKEW}. */
    public Builder maxFutureSkew(Duration value) {
      this.maxFutureSkew = Objects.requireNonNull(value, "maxFutureSkew");
      return this;
    }

    /**
     * @throws InvalidConfigException naming every problem found, each with its key
     */
    public KafkaSourceConfig build() {
      return new KafkaSourceConfig(
          bootstrapServers,
          topics,
          topicPattern,
          groupId,
          startupMode,
          committedFallback,
          startupTimestamp,
          bounded,
          partitionDiscoveryInterval,
          clientProperties,
          outOfOrderness,
          idleTimeout,
          maxRecordBytes,
          maxFutureSkew);
    }
  }
}
