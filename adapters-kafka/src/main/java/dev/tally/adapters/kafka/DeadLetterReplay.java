package dev.tally.adapters.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Copies selected dead letters back to a topic, so that an operator can have the job reprocess them
 * after fixing their producer: the original key and value bytes unchanged, {@link ReplayHeaders}
 * recording the replay, all in one Kafka transaction.
 *
 * <p>Each dead letter is replayed at most once, whatever the number of replays: a replay first
 * takes the replay's transactional id (one per dead-letter topic), which aborts or completes any
 * earlier replay's transaction and fences a concurrent one; it then reads the target topic, {@code
 * read_committed}, from the time of the oldest selected dead letter on, and leaves out every dead
 * letter a committed copy names in {@link ReplayHeaders#DEAD_LETTER}. A copy's timestamp is the
 * replay's time, never before its dead letter's, so that scan always covers it (and the job judges
 * the copy against the time it was produced, as it would a new record).
 */
public final class DeadLetterReplay {

  /** A dead letter and the topic it goes back to. */
  public record Copy(DeadLetter letter, String target) {}

  /**
   * What a replay does or did: the selected dead letters, those it copies and those that an earlier
   * replay copied already.
   */
  public record Plan(List<Copy> toReplay, List<Copy> alreadyReplayed) {
    public Plan {
      toReplay = List.copyOf(toReplay);
      alreadyReplayed = List.copyOf(alreadyReplayed);
    }
  }

  private static final Duration POLL = Duration.ofMillis(500);

  private final Map<String, String> clientProperties;
  private final String deadLetterTopic;
  private final String transactionalId;
  private final Duration timeout;
  private final Clock clock;

  /**
   * @param clientProperties the clients' properties, {@code bootstrap.servers} and security
   *     included (those of the dead-letter producer)
   * @param deadLetterTopic where the dead letters are
   * @param transactionalId the replay's transactional id; one per dead-letter topic, so that
   *     replays of it exclude each other
   * @param timeout how long reading a topic to its end may take
   */
  public DeadLetterReplay(
      Map<String, String> clientProperties,
      String deadLetterTopic,
      String transactionalId,
      Duration timeout,
      Clock clock) {
    this.clientProperties = Map.copyOf(clientProperties);
    this.deadLetterTopic = Objects.requireNonNull(deadLetterTopic, "deadLetterTopic");
    this.transactionalId = Objects.requireNonNull(transactionalId, "transactionalId");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * What {@link #replay} would do now; writes nothing. A replay whose transaction is still open is
   * not seen: only a replay itself waits for it.
   *
   * @param target the topic to copy to; null for each dead letter's source topic
   */
  public Plan plan(DeadLetterSelection selection, String target) {
    List<DeadLetter> selected = new ArrayList<>();
    read(
        deadLetterTopic,
        selection.since(),
        record -> {
          DeadLetter letter = DeadLetter.of(record);
          if (selection.matches(letter)) {
            selected.add(letter);
          }
        });
    List<Copy> copies = new ArrayList<>();
    for (DeadLetter letter : selected) {
      String topic = target != null ? target : letter.sourceTopic();
      if (topic.isEmpty()) {
        throw new IllegalStateException(
            letter.id()
                + " names no source topic ("
                + DeadLetterHeaders.SOURCE_TOPIC
                + "): give a target topic");
      }
      copies.add(new Copy(letter, topic));
    }
    Set<String> replayed = replayedDeadLetters(copies);
    List<Copy> toReplay = new ArrayList<>();
    List<Copy> already = new ArrayList<>();
    for (Copy copy : copies) {
      (replayed.contains(copy.letter().id()) ? already : toReplay).add(copy);
    }
    return new Plan(toReplay, already);
  }

  /**
   * Copies the selected dead letters not replayed before, in one transaction.
   *
   * @param target the topic to copy to; null for each dead letter's source topic
   * @return what it copied and what it left out as replayed before
   * @throws KafkaException when the transaction fails (then nothing of it is visible), e.g. when a
   *     concurrent replay of the same dead-letter topic fenced this one
   */
  public Plan replay(DeadLetterSelection selection, String target) {
    Properties props = ClientProperties.of(clientProperties);
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      // Before the plan: this ends any earlier replay's transaction, so the scan sees its outcome.
      producer.initTransactions();
      Plan plan = plan(selection, target);
      if (plan.toReplay().isEmpty()) {
        return plan;
      }
      Instant now = clock.instant();
      producer.beginTransaction();
      try {
        for (Copy copy : plan.toReplay()) {
          producer.send(copyOf(copy, selection, now));
        }
        producer.commitTransaction();
      } catch (ProducerFencedException e) {
        throw e; // fenced: the transaction is the newer replay's to end
      } catch (RuntimeException e) {
        producer.abortTransaction();
        throw e;
      }
      return plan;
    }
  }

  private static ProducerRecord<byte[], byte[]> copyOf(
      Copy copy, DeadLetterSelection selection, Instant now) {
    DeadLetter letter = copy.letter();
    RecordHeaders headers = new RecordHeaders();
    headers.add(header(ReplayHeaders.DEAD_LETTER, letter.id()));
    headers.add(header(ReplayHeaders.REASON, letter.reason()));
    headers.add(header(ReplayHeaders.SOURCE, letter.source()));
    headers.add(header(ReplayHeaders.SELECTION, selection.describe()));
    headers.add(header(ReplayHeaders.TIME, now.toString()));
    long timestamp = Math.max(now.toEpochMilli(), letter.timestampMillis());
    // No partition: the producer partitions by key, as the original producer's default would.
    return new ProducerRecord<>(
        copy.target(), null, timestamp, letter.key(), letter.value(), headers);
  }

  private static RecordHeader header(String key, String value) {
    return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
  }

  /** The dead letters that committed copies in the targets name, from the oldest copy's time on. */
  private Set<String> replayedDeadLetters(List<Copy> copies) {
    Map<String, Long> since = new HashMap<>();
    for (Copy copy : copies) {
      since.merge(copy.target(), copy.letter().timestampMillis(), Math::min);
    }
    Set<String> replayed = new HashSet<>();
    since.forEach(
        (topic, millis) ->
            read(
                topic,
                Instant.ofEpochMilli(millis),
                record -> {
                  String of = DeadLetter.text(record.headers(), ReplayHeaders.DEAD_LETTER);
                  if (!of.isEmpty()) {
                    replayed.add(of);
                  }
                }));
    return replayed;
  }

  /**
   * Reads every committed record of {@code topic} from {@code since} (null: the beginning) to the
   * end it has now.
   */
  private void read(String topic, Instant since, Consumer<ConsumerRecord<byte[], byte[]>> each) {
    Properties props = ClientProperties.of(clientProperties);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      if (infos == null || infos.isEmpty()) {
        throw new IllegalStateException("topic " + topic + " does not exist");
      }
      List<TopicPartition> partitions =
          infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      seek(consumer, partitions, since, end);
      long deadline = System.nanoTime() + timeout.toNanos();
      Set<TopicPartition> open = new LinkedHashSet<>(partitions);
      while (!(open = unfinished(consumer, open, end)).isEmpty()) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException(
              "could not read "
                  + topic
                  + " to its end within "
                  + timeout
                  + " (left: "
                  + open
                  + ")");
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
          if (record.offset() < end.get(new TopicPartition(record.topic(), record.partition()))) {
            each.accept(record);
          }
        }
      }
    }
  }

  private void seek(
      KafkaConsumer<byte[], byte[]> consumer,
      Collection<TopicPartition> partitions,
      Instant since,
      Map<TopicPartition, Long> end) {
    if (since == null) {
      consumer.seekToBeginning(partitions);
      return;
    }
    Map<TopicPartition, Long> query = new HashMap<>();
    partitions.forEach(p -> query.put(p, since.toEpochMilli()));
    Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, timeout);
    for (TopicPartition partition : partitions) {
      OffsetAndTimestamp at = found.get(partition);
      consumer.seek(partition, at != null ? at.offset() : end.get(partition));
    }
  }

  private Set<TopicPartition> unfinished(
      KafkaConsumer<byte[], byte[]> consumer,
      Set<TopicPartition> open,
      Map<TopicPartition, Long> end) {
    Set<TopicPartition> left = new LinkedHashSet<>();
    for (TopicPartition partition : open) {
      if (consumer.position(partition, timeout) < end.get(partition)) {
        left.add(partition);
      }
    }
    return left;
  }
}
