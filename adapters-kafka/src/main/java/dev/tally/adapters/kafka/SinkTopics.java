package dev.tally.adapters.kafka;

import dev.tally.ports.config.InvalidConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start's check of the topics the job's sinks write ({@link SinkTopic}): the dead-letter topic
 * and, with anomalies on, the anomaly topic. A topic that exists must be able to take what its sink
 * writes, else the job would fail on its first record and restart on it forever, or lose records
 * quietly; every problem is reported at once, naming the topic's key:
 *
 * <ul>
 *   <li>{@code max.message.bytes} below the sink's largest record: the broker refuses it;
 *   <li>{@code cleanup.policy} with {@code compact}: compaction keeps one record per key, so the
 *       alerts of a user (keyed by user) or the dead letters of one source key would vanish, and
 *       the broker refuses a record without key (a dead letter of a record without key);
 *   <li>{@code min.insync.replicas} above the topic's replication factor: the transactional (and
 *       idempotent) producer writes with {@code acks=all}, which such a topic never acknowledges.
 * </ul>
 *
 * <p>A topic that is missing is created with {@code max.message.bytes} set to what its sink needs,
 * and the broker's default partitions and replication ({@code num.partitions}, {@code
 * default.replication.factor}), as an operator's {@code kafka-topics --create} would have it.
 */
final class SinkTopics {

  private static final Logger LOG = LoggerFactory.getLogger(SinkTopics.class);

  static final String CLEANUP_POLICY = "cleanup.policy";
  static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";

  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

  private SinkTopics() {}

  /**
   * What an existing topic holds, as far as its sink cares.
   *
   * @param maxMessageBytes its effective {@code max.message.bytes}
   * @param cleanupPolicy its effective {@code cleanup.policy}
   * @param minInsyncReplicas its effective {@code min.insync.replicas}
   * @param replicationFactor the fewest replicas any of its partitions has
   */
  record Existing(
      long maxMessageBytes, String cleanupPolicy, int minInsyncReplicas, int replicationFactor) {}

  /** Every problem of {@code existing} as {@code sink}'s topic; empty when it can work. */
  static List<String> problems(SinkTopic sink, Existing existing) {
    List<String> problems = new ArrayList<>();
    String prefix = sink.key() + ": the topic " + sink.topic() + " has ";
    if (existing.maxMessageBytes() < sink.maxMessageBytes()) {
      problems.add(
          prefix
              + DeadLetterSizing.TOPIC_MAX_MESSAGE
              + "="
              + existing.maxMessageBytes()
              + ", less than "
              + sink.why()
              + ": raise the topic's "
              + DeadLetterSizing.TOPIC_MAX_MESSAGE
              + " to at least "
              + sink.maxMessageBytes());
    }
    if (existing.cleanupPolicy().toLowerCase(Locale.ROOT).contains("compact")) {
      problems.add(
          prefix
              + CLEANUP_POLICY
              + "="
              + existing.cleanupPolicy()
              + ": compaction keeps only the latest record of each key and refuses records without"
              + " one, so records of the sink would be lost or refused: use "
              + CLEANUP_POLICY
              + "=delete, or another topic");
    }
    if (existing.minInsyncReplicas() > existing.replicationFactor()) {
      problems.add(
          prefix
              + MIN_INSYNC_REPLICAS
              + "="
              + existing.minInsyncReplicas()
              + " but only "
              + existing.replicationFactor()
              + " replicas: the sink's producer writes with acks=all, which the topic never"
              + " acknowledges; lower "
              + MIN_INSYNC_REPLICAS
              + " or add replicas");
    }
    return problems;
  }

  /**
   * Checks the sinks' topics that exist.
   *
   * @return every problem, each naming the topic's key, and the topics that are missing
   */
  static Checked check(Admin admin, List<SinkTopic> sinks)
      throws InterruptedException, ExecutionException, TimeoutException {
    long millis = ADMIN_TIMEOUT.toMillis();
    Set<String> names = admin.listTopics().names().get(millis, TimeUnit.MILLISECONDS);
    List<SinkTopic> missing = new ArrayList<>();
    List<SinkTopic> present = new ArrayList<>();
    for (SinkTopic sink : sinks) {
      (names.contains(sink.topic()) ? present : missing).add(sink);
    }
    Map<String, Existing> existing = describe(admin, present);
    List<String> problems = new ArrayList<>();
    for (SinkTopic sink : present) {
      problems.addAll(problems(sink, existing.get(sink.topic())));
    }
    return new Checked(List.copyOf(problems), List.copyOf(missing));
  }

  /**
   * The outcome of {@link #check}.
   *
   * @param problems every problem of a topic that exists
   * @param missing the sinks whose topic does not exist yet
   */
  record Checked(List<String> problems, List<SinkTopic> missing) {}

  /**
   * Creates each missing topic with the {@code max.message.bytes} its sink needs. A topic created
   * by someone else meanwhile is checked as an existing one.
   *
   * @throws InvalidConfigException when such a topic cannot work, naming its key
   */
  static void create(Admin admin, List<SinkTopic> missing)
      throws InterruptedException, ExecutionException, TimeoutException {
    for (SinkTopic sink : missing) {
      NewTopic topic =
          new NewTopic(sink.topic(), Optional.empty(), Optional.empty())
              .configs(
                  Map.of(
                      DeadLetterSizing.TOPIC_MAX_MESSAGE, Long.toString(sink.maxMessageBytes())));
      try {
        admin
            .createTopics(List.of(topic))
            .all()
            .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        LOG.info(
            "Created the topic {} ({}) with {}={} (partitions and replication: the broker's"
                + " defaults)",
            sink.topic(),
            sink.key(),
            DeadLetterSizing.TOPIC_MAX_MESSAGE,
            sink.maxMessageBytes());
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
        // Created by someone else since the start looked: check it as an existing topic.
        InvalidConfigException.throwIfAny(
            "sink topics", problems(sink, describe(admin, List.of(sink)).get(sink.topic())));
      }
    }
  }

  private static Map<String, Existing> describe(Admin admin, List<SinkTopic> sinks)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (sinks.isEmpty()) {
      return Map.of();
    }
    long millis = ADMIN_TIMEOUT.toMillis();
    List<String> topics = sinks.stream().map(SinkTopic::topic).distinct().toList();
    Map<String, TopicDescription> descriptions =
        admin.describeTopics(topics).allTopicNames().get(millis, TimeUnit.MILLISECONDS);
    List<ConfigResource> resources =
        topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
    Map<ConfigResource, Config> configs =
        admin.describeConfigs(resources).all().get(millis, TimeUnit.MILLISECONDS);
    Map<String, Existing> existing = new HashMap<>();
    configs.forEach(
        (resource, config) ->
            existing.put(
                resource.name(),
                new Existing(
                    Long.parseLong(value(config, DeadLetterSizing.TOPIC_MAX_MESSAGE)),
                    value(config, CLEANUP_POLICY),
                    minInsyncReplicas(config),
                    descriptions.get(resource.name()).partitions().stream()
                        .mapToInt(SinkTopics::replicas)
                        .min()
                        .orElse(0))));
    return existing;
  }

  /** A topic's {@code min.insync.replicas}; 1, Kafka's default, when the broker gives none. */
  private static int minInsyncReplicas(Config config) {
    String value = value(config, MIN_INSYNC_REPLICAS);
    return value.isEmpty() ? 1 : Integer.parseInt(value);
  }

  private static int replicas(TopicPartitionInfo partition) {
    return partition.replicas().size();
  }

  private static String value(Config config, String name) {
    ConfigEntry entry = config.get(name);
    return entry == null || entry.value() == null ? "" : entry.value();
  }
}
