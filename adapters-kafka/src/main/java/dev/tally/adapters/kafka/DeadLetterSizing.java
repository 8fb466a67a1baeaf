package dev.tally.adapters.kafka;

import dev.tally.ports.config.InvalidConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sizes the dead-letter path from the source topics at start, so that every record a source topic
 * can hold reaches the dead-letter topic whole (docs/behaviour.md "Record size"): the producer's
 * {@code max.request.size} and {@code buffer.memory}, and the dead-letter topic's {@code
 * max.message.bytes}, must each accept the largest source record plus {@link
 * DeadLetterRecordSize#HEADROOM}. Settings Tally owns it sets; settings the user made, or a topic
 * that exists, it checks, and reports every one too small at once, naming the key or the topic
 * setting. The dead-letter topic, and the topics of the job's other Kafka sinks (the anomaly
 * topic), are checked or created by {@link SinkTopics}, in the same pass.
 *
 * <p>The job's start runs it ({@link #sizeFor}), next to the other checks against live services,
 * before the job graph is built: building a graph does no I/O with Kafka.
 */
public final class DeadLetterSizing {

  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterSizing.class);

  static final String MAX_REQUEST_SIZE = "max.request.size";
  static final String BUFFER_MEMORY = "buffer.memory";

  /** A topic's limit on a record batch; defaults to the broker's {@value #BROKER_MAX_MESSAGE}. */
  static final String TOPIC_MAX_MESSAGE = "max.message.bytes";

  /** The broker's default of {@value #TOPIC_MAX_MESSAGE}: what a topic created later will hold. */
  static final String BROKER_MAX_MESSAGE = "message.max.bytes";

  /** The producer's default {@code max.request.size}: 1 MiB. */
  static final long DEFAULT_MAX_REQUEST_SIZE = 1024L * 1024;

  /** The producer's default {@code buffer.memory}: 32 MiB. */
  static final long DEFAULT_BUFFER_MEMORY = 32L * 1024 * 1024;

  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

  private DeadLetterSizing() {}

  /**
   * What the cluster holds at start.
   *
   * @param sourceMaxMessageBytes the largest {@value #TOPIC_MAX_MESSAGE} of the source topics (the
   *     broker's {@value #BROKER_MAX_MESSAGE} for a topic that does not exist yet, and for a topic
   *     pattern, which topics created later will match)
   * @param largestSource which topic (or the broker default) that limit is from, for messages
   */
  record Limits(long sourceMaxMessageBytes, String largestSource) {}

  /**
   * The decision at start.
   *
   * @param problems every setting too small, each naming its key or topic setting; empty when the
   *     path fits
   * @param required what the producer and the topic must each accept
   * @param producerOverrides the producer properties Tally sets because the user did not
   * @param producerLimit the smaller of the producer's effective request size and buffer memory
   * @param deadLetterTopic the dead-letter topic as the start checks or creates it ({@link
   *     SinkTopics}), needing {@code required}
   */
  record Plan(
      List<String> problems,
      long required,
      Map<String, String> producerOverrides,
      long producerLimit,
      SinkTopic deadLetterTopic) {}

  /**
   * Decides the producer's size settings and checks the ones given.
   *
   * @param limits what the cluster holds
   * @param deadLetterTopic the dead-letter topic, for messages
   * @param producerProperties the producer properties the user configured
   */
  static Plan plan(Limits limits, String deadLetterTopic, Map<String, String> producerProperties) {
    long required = DeadLetterRecordSize.requiredFor(limits.sourceMaxMessageBytes());
    String why =
        "the dead-letter path needs "
            + required
            + " bytes for the largest record the source can hold ("
            + TOPIC_MAX_MESSAGE
            + " "
            + limits.sourceMaxMessageBytes()
            + " of "
            + limits.largestSource()
            + ", plus "
            + DeadLetterRecordSize.HEADROOM
            + " for the dead-letter headers)";
    List<String> problems = new ArrayList<>();
    Map<String, String> overrides = new LinkedHashMap<>();
    long requestSize =
        producerSetting(
            producerProperties, MAX_REQUEST_SIZE, required, required, why, problems, overrides);
    long bufferMemory =
        producerSetting(
            producerProperties,
            BUFFER_MEMORY,
            required,
            Math.max(DEFAULT_BUFFER_MEMORY, required),
            why,
            problems,
            overrides);
    return new Plan(
        List.copyOf(problems),
        required,
        Map.copyOf(overrides),
        Math.min(requestSize, bufferMemory),
        new SinkTopic(DeadLetterConfig.TOPIC.name(), deadLetterTopic, required, why));
  }

  /**
   * A producer size setting: the user's value, checked against {@code minimum}, or {@code value} as
   * an override.
   *
   * @return the effective value
   */
  private static long producerSetting(
      Map<String, String> producerProperties,
      String property,
      long minimum,
      long value,
      String why,
      List<String> problems,
      Map<String, String> overrides) {
    String given = producerProperties.get(property);
    String keys =
        KafkaSourceConfig.PROPERTIES.name()
            + property
            + " or "
            + DeadLetterConfig.PROPERTIES.name()
            + property;
    if (given == null) {
      overrides.put(property, Long.toString(value));
      return value;
    }
    long parsed;
    try {
      parsed = Long.parseLong(given.trim());
    } catch (NumberFormatException e) {
      problems.add(keys + ": is no number of bytes: \"" + given + "\"");
      return value;
    }
    if (parsed < minimum) {
      problems.add(
          keys
              + ": "
              + parsed
              + " is too small for dead letters: "
              + why
              + "; raise it to at least "
              + minimum
              + ", or leave it out and Tally sets it");
    }
    return parsed;
  }

  /**
   * Sizes the dead-letter path for {@code source}'s topics against the live cluster: reads the
   * limits, checks what is configured, creates the dead-letter topic if it is missing.
   *
   * @return {@code options} with the producer's size settings Tally sets added
   * @throws InvalidConfigException naming every setting too small, each with its key or topic
   * @throws IllegalStateException when Kafka does not answer
   */
  public static DeadLetterConfig sizeFor(DeadLetterConfig options, KafkaSourceConfig source) {
    return sizeFor(options, source, List.of());
  }

  /**
   * As {@link #sizeFor(DeadLetterConfig, KafkaSourceConfig)}, and checks or creates the topics of
   * the job's other Kafka sinks on the dead-letter producer's cluster the same way ({@link
   * SinkTopics}): the anomaly topic. Every problem of every topic is reported at once.
   *
   * @param otherTopics the topics of the other sinks that write with the dead-letter producer's
   *     connection, e.g. {@link SinkTopic#alerts}
   */
  public static DeadLetterConfig sizeFor(
      DeadLetterConfig options, KafkaSourceConfig source, List<SinkTopic> otherTopics) {
    Plan plan =
        prepare(
            adminProperties(options), source.topics(), source.topicPattern(), options, otherTopics);
    Map<String, String> producer = new LinkedHashMap<>(options.producerProperties());
    producer.putAll(plan.producerOverrides());
    return options.withProducerProperties(producer);
  }

  /** The smaller of the producer's {@code max.request.size} and {@code buffer.memory}. */
  static long producerLimit(Map<String, String> producerProperties) {
    return Math.min(
        bytes(producerProperties.get(MAX_REQUEST_SIZE), DEFAULT_MAX_REQUEST_SIZE),
        bytes(producerProperties.get(BUFFER_MEMORY), DEFAULT_BUFFER_MEMORY));
  }

  private static long bytes(String value, long fallback) {
    try {
      return value == null ? fallback : Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return fallback; // the producer itself refuses it at start
    }
  }

  /**
   * Reads the limits, plans, checks the sink topics that exist and creates those that are missing.
   */
  static Plan prepare(
      Map<String, String> adminProperties,
      List<String> topics,
      String topicPattern,
      DeadLetterConfig options,
      List<SinkTopic> otherTopics) {
    try (Admin admin = Admin.create(ClientProperties.of(adminProperties))) {
      Limits limits = readLimits(admin, topics, topicPattern);
      Plan plan = plan(limits, options.topic(), options.producerProperties());
      List<SinkTopic> sinkTopics = new ArrayList<>();
      sinkTopics.add(plan.deadLetterTopic());
      sinkTopics.addAll(otherTopics);
      SinkTopics.Checked checked = SinkTopics.check(admin, sinkTopics);
      List<String> problems = new ArrayList<>(plan.problems());
      problems.addAll(checked.problems());
      InvalidConfigException.throwIfAny("Kafka sink sizing", problems);
      SinkTopics.create(admin, checked.missing());
      LOG.info(
          "Dead letters to {}: largest source record {} bytes ({}), producer and topic sized for"
              + " {} bytes; producer settings set by Tally: {}",
          options.topic(),
          limits.sourceMaxMessageBytes(),
          limits.largestSource(),
          plan.required(),
          plan.producerOverrides());
      return plan;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sizing the dead-letter path", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "cannot read the topic limits for the dead-letter path from Kafka: " + e.getMessage(), e);
    }
  }

  /** What the start reads from the cluster: see {@link Limits}. */
  static Limits readLimits(Admin admin, List<String> topics, String topicPattern)
      throws InterruptedException, ExecutionException, TimeoutException {
    long millis = ADMIN_TIMEOUT.toMillis();
    Set<String> existing = admin.listTopics().names().get(millis, TimeUnit.MILLISECONDS);
    List<String> sources = new ArrayList<>();
    boolean brokerDefaultApplies = topicPattern != null;
    if (topicPattern != null) {
      Pattern pattern = Pattern.compile(topicPattern);
      existing.stream().filter(t -> pattern.matcher(t).matches()).sorted().forEach(sources::add);
    } else {
      for (String topic : topics) {
        if (existing.contains(topic)) {
          sources.add(topic);
        } else {
          brokerDefaultApplies = true;
        }
      }
    }
    Map<String, Long> byTopic = topicLimits(admin, sources);
    long largest = -1;
    String from = null;
    for (String source : sources) {
      long limit = byTopic.get(source);
      if (limit > largest) {
        largest = limit;
        from = "topic " + source;
      }
    }
    if (brokerDefaultApplies || from == null) {
      long broker = brokerMaxMessageBytes(admin);
      if (broker > largest) {
        largest = broker;
        from = "the broker's " + BROKER_MAX_MESSAGE + ", for source topics created later";
      }
    }
    return new Limits(largest, from);
  }

  /**
   * The dead-letter topic's {@value #TOPIC_MAX_MESSAGE} now, read again by each writer when it
   * opens; empty, with a warning, when Kafka does not answer (the writer then keeps the start's).
   */
  static OptionalLong readTopicLimit(Map<String, String> adminProperties, String topic) {
    try (Admin admin = Admin.create(ClientProperties.of(adminProperties))) {
      return OptionalLong.of(topicLimits(admin, List.of(topic)).get(topic));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalLong.empty();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      LOG.warn(
          "Cannot read {} of the dead-letter topic {}; keeping the value found at start: {}",
          TOPIC_MAX_MESSAGE,
          topic,
          e.toString());
      return OptionalLong.empty();
    }
  }

  /**
   * The client properties of the dead-letter producer that an admin client understands (security
   * and connection settings), with the bootstrap servers.
   */
  static Map<String, String> adminProperties(DeadLetterConfig options) {
    return KafkaAccessCheck.adminProperties(
        options.bootstrapServers(), options.producerProperties());
  }

  private static Map<String, Long> topicLimits(Admin admin, List<String> topics)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (topics.isEmpty()) {
      return Map.of();
    }
    List<ConfigResource> resources =
        topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
    Map<ConfigResource, Config> configs =
        admin.describeConfigs(resources).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    Map<String, Long> limits = new HashMap<>();
    configs.forEach(
        (resource, config) ->
            limits.put(resource.name(), Long.parseLong(config.get(TOPIC_MAX_MESSAGE).value())));
    return limits;
  }

  private static long brokerMaxMessageBytes(Admin admin)
      throws InterruptedException, ExecutionException, TimeoutException {
    long millis = ADMIN_TIMEOUT.toMillis();
    Node node =
        admin.describeCluster().nodes().get(millis, TimeUnit.MILLISECONDS).iterator().next();
    ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
    Config config =
        admin.describeConfigs(List.of(broker)).all().get(millis, TimeUnit.MILLISECONDS).get(broker);
    return Long.parseLong(config.get(BROKER_MAX_MESSAGE).value());
  }
}
