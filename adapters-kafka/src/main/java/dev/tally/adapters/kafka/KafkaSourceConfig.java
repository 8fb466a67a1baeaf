package dev.tally.adapters.kafka;

import dev.tally.domain.transaction.TransactionValidator;
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
 * Everything the Kafka transaction source needs, validated as a whole: {@link Builder#build()}
 * reports every problem at once.
 *
 * @param bootstrapServers the brokers to bootstrap from, {@code host:port[,host:port…]}
 * @param topics the topics to read; empty when {@code topicPattern} is used
 * @param topicPattern a regular expression of topics to read, or {@code null} when {@code topics}
 *     is used
 * @param groupId the consumer group; offsets are committed to it on completed checkpoints (for
 *     monitoring and {@link StartupMode#COMMITTED}; the job's own progress lives in its
 *     checkpoints)
 * @param startupMode where to start without restored state
 * @param committedFallback for {@link StartupMode#COMMITTED}: where to start in partitions the
 *     group has no offset for; {@link StartupMode#EARLIEST} or {@link StartupMode#LATEST}
 * @param startupTimestamp for {@link StartupMode#TIMESTAMP}: the instant to start from
 * @param bounded stop at the offsets that are latest when the job starts (tests and backfills); the
 *     final watermark then fires every window
 * @param partitionDiscoveryInterval how often to look for new partitions and matching topics; zero
 *     disables
 * @param clientProperties passed to the Kafka consumer unchanged (security, SASL/SSL, tuning); must
 *     not set what the options above own
 * @param outOfOrderness the watermark's bound: how late within a partition an event may arrive and
 *     still be on time
 * @param idleTimeout a partition without records for this long stops holding the watermark back;
 *     zero disables
 * @param maxRecordBytes values larger than this are rejected as {@code MALFORMED}
 * @param maxFutureSkew how far an event time may lie after its record's timestamp before {@code
 *     FUTURE_TIMESTAMP}
 */
public record KafkaSourceOptions(
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

  /** SPEC default topic. */
  public static final String DEFAULT_TOPIC = "financial-transactions";

  /**
   * Consumer properties the options own; setting them through {@code clientProperties} is an error.
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

  public KafkaSourceOptions {
    topics = List.copyOf(topics);
    clientProperties = Map.copyOf(clientProperties);
    List<String> problems =
        problems(
            bootstrapServers,
            topics,
            topicPattern,
            groupId,
            startupMode,
            committedFallback,
            startupTimestamp,
            partitionDiscoveryInterval,
            clientProperties,
            outOfOrderness,
            idleTimeout,
            maxRecordBytes,
            maxFutureSkew);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "invalid Kafka source options: " + String.join("; ", problems));
    }
  }

  /**
   * A builder with the SPEC defaults: topic {@value #DEFAULT_TOPIC}, latest offsets, 5 s bound, 30
   * s idleness.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** The compiled topic pattern, when one is used. */
  public Optional<Pattern> compiledTopicPattern() {
    return Optional.ofNullable(topicPattern).map(Pattern::compile);
  }

  /** The validator these options configure. */
  public TransactionValidator validator() {
    return new TransactionValidator(maxFutureSkew);
  }

  private static List<String> problems(
      String bootstrapServers,
      List<String> topics,
      String topicPattern,
      String groupId,
      StartupMode startupMode,
      StartupMode committedFallback,
      Instant startupTimestamp,
      Duration partitionDiscoveryInterval,
      Map<String, String> clientProperties,
      Duration outOfOrderness,
      Duration idleTimeout,
      int maxRecordBytes,
      Duration maxFutureSkew) {
    List<String> problems = new ArrayList<>();
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      problems.add("bootstrapServers must be set");
    }
    if (topics.isEmpty() == (topicPattern == null)) {
      problems.add("set exactly one of topics and topicPattern");
    }
    for (String topic : topics) {
      if (topic == null || topic.isBlank()) {
        problems.add("topics must not contain a blank name");
      }
    }
    if (topicPattern != null) {
      try {
        Pattern.compile(topicPattern);
      } catch (PatternSyntaxException e) {
        problems.add("topicPattern is no regular expression: " + e.getDescription());
      }
    }
    if (groupId == null || groupId.isBlank()) {
      problems.add("groupId must be set");
    }
    if (startupMode == null) {
      problems.add("startupMode must be set");
    }
    if (startupMode == StartupMode.COMMITTED
        && committedFallback != StartupMode.EARLIEST
        && committedFallback != StartupMode.LATEST) {
      problems.add("committedFallback must be EARLIEST or LATEST with startupMode COMMITTED");
    }
    if (startupMode == StartupMode.TIMESTAMP && startupTimestamp == null) {
      problems.add("startupTimestamp must be set with startupMode TIMESTAMP");
    }
    requireNotNegative(problems, "partitionDiscoveryInterval", partitionDiscoveryInterval);
    requireNotNegative(problems, "outOfOrderness", outOfOrderness);
    requireNotNegative(problems, "idleTimeout", idleTimeout);
    requireNotNegative(problems, "maxFutureSkew", maxFutureSkew);
    if (maxRecordBytes <= 0) {
      problems.add("maxRecordBytes must be positive, not " + maxRecordBytes);
    }
    for (String key : clientProperties.keySet()) {
      if (RESERVED_CLIENT_PROPERTIES.contains(key)) {
        problems.add("client property " + key + " is set by the source itself; use its own option");
      }
    }
    return problems;
  }

  private static void requireNotNegative(List<String> problems, String name, Duration value) {
    if (value == null) {
      problems.add(name + " must be set");
    } else if (value.isNegative()) {
      problems.add(name + " must not be negative, not " + value);
    }
  }

  /**
   * Builds {@link KafkaSourceOptions}; setters reject {@code null}, {@link #build()} checks the
   * whole.
   */
  public static final class Builder {
    private String bootstrapServers;
    private List<String> topics = List.of(DEFAULT_TOPIC);
    private String topicPattern;
    private String groupId = "tally";
    private StartupMode startupMode = StartupMode.LATEST;
    private StartupMode committedFallback = StartupMode.EARLIEST;
    private Instant startupTimestamp;
    private boolean bounded;
    private Duration partitionDiscoveryInterval = Duration.ofMinutes(5);
    private final Map<String, String> clientProperties = new LinkedHashMap<>();
    private Duration outOfOrderness = Duration.ofSeconds(5);
    private Duration idleTimeout = Duration.ofSeconds(30);
    private int maxRecordBytes = TransactionDecoder.DEFAULT_MAX_RECORD_BYTES;
    private Duration maxFutureSkew = TransactionValidator.DEFAULT_MAX_FUTURE_SKEW;

    private Builder() {}

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

    public Builder groupId(String value) {
      this.groupId = Objects.requireNonNull(value, "groupId");
      return this;
    }

    public Builder startupMode(StartupMode value) {
      this.startupMode = Objects.requireNonNull(value, "startupMode");
      return this;
    }

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

    public Builder bounded(boolean value) {
      this.bounded = value;
      return this;
    }

    public Builder partitionDiscoveryInterval(Duration value) {
      this.partitionDiscoveryInterval = Objects.requireNonNull(value, "partitionDiscoveryInterval");
      return this;
    }

    public Builder clientProperty(String key, String value) {
      clientProperties.put(
          Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public Builder clientProperties(Map<String, String> values) {
      values.forEach(this::clientProperty);
      return this;
    }

    public Builder outOfOrderness(Duration value) {
      this.outOfOrderness = Objects.requireNonNull(value, "outOfOrderness");
      return this;
    }

    public Builder idleTimeout(Duration value) {
      this.idleTimeout = Objects.requireNonNull(value, "idleTimeout");
      return this;
    }

    public Builder maxRecordBytes(int value) {
      this.maxRecordBytes = value;
      return this;
    }

    public Builder maxFutureSkew(Duration value) {
      this.maxFutureSkew = Objects.requireNonNull(value, "maxFutureSkew");
      return this;
    }

    /**
     * @throws IllegalArgumentException naming every problem found
     */
    public KafkaSourceOptions build() {
      return new KafkaSourceOptions(
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
