package dev.tally.adapters.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the newest committed dead letters of each partition of the dead-letter topic, newest first,
 * until {@link DeadLetterRollback} decides whether a restore would send some of them again.
 *
 * <p>Only committed dead letters count ({@code read_committed}): those of a checkpoint that never
 * completed are aborted and sent again by design, and those the restored job writes meanwhile are
 * committed only by its first checkpoint, which cannot complete before this check has. The read
 * does not wait for transactions still open: the other subtasks of the restored job may hold one
 * open until that first checkpoint. So a dead letter committed behind a transaction still open in
 * its partition (one the stopped job left, until the restored writers abort it) is not seen.
 */
final class DeadLetterTail {

  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterTail.class);

  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
  private static final int CHUNK = 2_000;

  /** The most records read back per partition: a bound for topics shared with other writers. */
  static final long MAX_RECORDS_PER_PARTITION = 200_000;

  private DeadLetterTail() {}

  /**
   * Why a restore of state of {@code lineage} taken at {@code checkpoint} would send dead letters
   * of {@code topic} again, or empty when it would not.
   *
   * @param clientProperties connection and security settings of the dead-letter producer, with the
   *     bootstrap servers
   */
  static Optional<String> refusal(
      String topic, Map<String, String> clientProperties, String lineage, long checkpoint)
      throws InterruptedException {
    Map<TopicPartition, long[]> ranges;
    try (Admin admin = Admin.create(ClientProperties.of(clientProperties))) {
      ranges = committedRanges(admin, topic);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      throw new IllegalStateException(
          "cannot read the dead-letter topic " + topic + " to check the restore: " + e.getCause(),
          e);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "cannot read the dead-letter topic " + topic + " to check the restore: " + e, e);
    }
    Properties consumer = ClientProperties.of(clientProperties);
    consumer.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    try (KafkaConsumer<byte[], byte[]> reader = new KafkaConsumer<>(consumer)) {
      for (Map.Entry<TopicPartition, long[]> range : ranges.entrySet()) {
        Optional<DeadLetterRollback.Letter> again =
            scan(
                reader,
                range.getKey(),
                range.getValue()[0],
                range.getValue()[1],
                lineage,
                checkpoint);
        if (again.isPresent()) {
          return Optional.of(DeadLetterRollback.refusal(topic, again.get(), checkpoint));
        }
      }
    }
    return Optional.empty();
  }

  /** Each partition's earliest offset and its last stable offset, the end of committed reads. */
  private static Map<TopicPartition, long[]> committedRanges(Admin admin, String topic)
      throws InterruptedException, ExecutionException, TimeoutException {
    long millis = ADMIN_TIMEOUT.toMillis();
    TopicDescription description =
        admin
            .describeTopics(List.of(topic))
            .allTopicNames()
            .get(millis, TimeUnit.MILLISECONDS)
            .get(topic);
    List<TopicPartition> partitions =
        description.partitions().stream()
            .map(p -> new TopicPartition(topic, p.partition()))
            .collect(Collectors.toList());
    Map<TopicPartition, Long> earliest = offsets(admin, partitions, OffsetSpec.earliest(), null);
    Map<TopicPartition, Long> stable =
        offsets(admin, partitions, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED);
    Map<TopicPartition, long[]> ranges = new HashMap<>();
    for (TopicPartition partition : partitions) {
      ranges.put(partition, new long[] {earliest.get(partition), stable.get(partition)});
    }
    return ranges;
  }

  private static Map<TopicPartition, Long> offsets(
      Admin admin, List<TopicPartition> partitions, OffsetSpec spec, IsolationLevel isolation)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    partitions.forEach(p -> request.put(p, spec));
    ListOffsetsOptions options =
        isolation == null ? new ListOffsetsOptions() : new ListOffsetsOptions(isolation);
    Map<TopicPartition, Long> result = new HashMap<>();
    admin
        .listOffsets(request, options)
        .all()
        .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .forEach((partition, info) -> result.put(partition, info.offset()));
    return result;
  }

  private static Optional<DeadLetterRollback.Letter> scan(
      KafkaConsumer<byte[], byte[]> reader,
      TopicPartition partition,
      long earliest,
      long end,
      String lineage,
      long checkpoint) {
    reader.assign(List.of(partition));
    long to = end;
    while (to > earliest && end - to < MAX_RECORDS_PER_PARTITION) {
      long from = Math.max(earliest, to - CHUNK);
      List<DeadLetterRollback.Letter> letters = read(reader, partition, from, to);
      Collections.reverse(letters);
      DeadLetterRollback.Verdict verdict = DeadLetterRollback.judge(letters, lineage, checkpoint);
      if (verdict instanceof DeadLetterRollback.SentAgain again) {
        return Optional.of(again.letter());
      }
      if (verdict instanceof DeadLetterRollback.Clear) {
        return Optional.empty();
      }
      to = from;
    }
    if (to > earliest) {
      LOG.warn(
          "Dead-letter topic {}: read back {} records of partition {} without finding one of lineage"
              + " {} older than checkpoint {}; the restore check looks no further",
          partition.topic(),
          MAX_RECORDS_PER_PARTITION,
          partition.partition(),
          lineage,
          checkpoint);
    }
    return Optional.empty();
  }

  /** The committed records of {@code [from, to)}, oldest first. */
  private static List<DeadLetterRollback.Letter> read(
      KafkaConsumer<byte[], byte[]> reader, TopicPartition partition, long from, long to) {
    reader.seek(partition, from);
    List<DeadLetterRollback.Letter> letters = new ArrayList<>();
    long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
    while (reader.position(partition) < to) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "cannot read the dead-letter topic "
                + partition
                + " from offset "
                + from
                + " to "
                + to
                + " within "
                + READ_TIMEOUT
                + " to check the restore");
      }
      for (ConsumerRecord<byte[], byte[]> record : reader.poll(Duration.ofMillis(200))) {
        if (record.offset() < to) {
          letters.add(
              new DeadLetterRollback.Letter(
                  record.topic() + ":" + record.partition() + ":" + record.offset(),
                  DeadLetter.text(record.headers(), DeadLetterHeaders.LINEAGE),
                  DeadLetter.number(record.headers(), DeadLetterHeaders.AFTER_CHECKPOINT)));
        }
      }
    }
    return letters;
  }
}
