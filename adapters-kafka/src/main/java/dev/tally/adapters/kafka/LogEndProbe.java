package dev.tally.adapters.kafka;

import dev.tally.domain.transaction.SourceRecord;
import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers, for a partition that has sent no accepted record for the idle timeout, whether it is
 * caught up: whether the log holds no record that the source would accept between the reader's
 * position and the log end. Only then may the partition go idle ({@link AcceptedEventsWatermarks}):
 * a partition silent because the broker is unreachable, or because its records are still on their
 * way, has records that a failure-free run reads in order, and must go on holding the watermark.
 *
 * <p>It reads what lies between the position and the end with a consumer of its own, and decodes it
 * as the source does: the offsets between are not all records the reader will emit (transaction
 * markers and, under {@code read_committed}, aborted records take offsets too), and a rejected
 * record says nothing about event time, so a partition that sends only rejected records is caught
 * up as soon as the reader has read what was there when asked.
 *
 * <p>One probe serves one source reader. Its consumer lives on a daemon thread of its own, created
 * on the first question, so the source thread never waits for the broker. Every failure (the broker
 * unreachable, a timeout, more unread records than it looks at) is the answer "not caught up": an
 * unknown backlog must not let the watermark pass it.
 */
final class LogEndProbe implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LogEndProbe.class);

  /**
   * At most this many unread records are decoded per question; a longer backlog is "not caught up",
   * since the reader is still working through it.
   */
  static final int MAX_RECORDS_EXAMINED = 10_000;

  /**
   * What the probe's consumer needs: the source's own connection and decoding settings, so that it
   * reads and decides as the source does.
   *
   * @param bootstrapServers the source's brokers
   * @param groupId the source's consumer group, to look up a committed starting offset (the probe
   *     never commits)
   * @param clientProperties the source's consumer properties (security, isolation level)
   * @param committedFallbackEarliest where a split that starts from the committed offset starts
   *     when the group has none
   * @param decoder the source's decoder
   * @param timeout the longest one question may take; a question not answered by then is "not
   *     caught up"
   */
  record Settings(
      String bootstrapServers,
      String groupId,
      Map<String, String> clientProperties,
      boolean committedFallbackEarliest,
      TransactionDecoder decoder,
      Duration timeout)
      implements Serializable {
    private static final long serialVersionUID = 1L;

    Settings {
      Objects.requireNonNull(bootstrapServers, "bootstrapServers");
      Objects.requireNonNull(groupId, "groupId");
      clientProperties = Map.copyOf(clientProperties);
      Objects.requireNonNull(decoder, "decoder");
      Objects.requireNonNull(timeout, "timeout");
    }
  }

  private final Settings settings;
  private final String clientId;
  private ExecutorService executor;
  // Created and used on the executor's thread only; read elsewhere just to wake it up.
  private volatile KafkaConsumer<byte[], byte[]> consumer;

  LogEndProbe(Settings settings, String clientId) {
    this.settings = settings;
    this.clientId = clientId;
  }

  /**
   * Whether each partition holds no record the source would accept from its position (the next
   * offset the reader reads, or one of the connector's starting-offset markers) to its end as the
   * broker reports it now. Completes on the probe's thread; never completes exceptionally; true for
   * no partitions.
   */
  CompletableFuture<Boolean> caughtUp(Map<TopicPartition, Long> positions) {
    if (executor == null) {
      executor =
          Executors.newSingleThreadExecutor(
              task -> {
                Thread thread = new Thread(task, clientId);
                thread.setDaemon(true);
                return thread;
              });
    }
    Map<TopicPartition, Long> asked = Map.copyOf(positions);
    try {
      return CompletableFuture.supplyAsync(
          () -> asked.entrySet().stream().allMatch(p -> check(p.getKey(), p.getValue())), executor);
    } catch (RejectedExecutionException closed) {
      return CompletableFuture.completedFuture(false);
    }
  }

  @Override
  public void close() {
    if (executor == null) {
      return;
    }
    KafkaConsumer<byte[], byte[]> current = consumer;
    if (current != null) {
      current.wakeup(); // ends a question in progress at once
    }
    try {
      executor.execute(this::closeConsumer);
    } catch (RejectedExecutionException alreadyClosed) {
      return;
    }
    executor.shutdown(); // the thread ends after closing the consumer; nothing waits for it
  }

  private boolean check(TopicPartition partition, long position) {
    try {
      KafkaConsumer<byte[], byte[]> reader = consumer();
      Duration timeout = settings.timeout();
      reader.assign(List.of(partition));
      seek(reader, partition, position);
      long end = reader.endOffsets(List.of(partition), timeout).get(partition);
      long deadline = System.nanoTime() + timeout.toNanos();
      int examined = 0;
      while (reader.position(partition, timeout) < end) {
        if (System.nanoTime() - deadline > 0 || examined >= MAX_RECORDS_EXAMINED) {
          return false;
        }
        for (ConsumerRecord<byte[], byte[]> record : reader.poll(Duration.ofMillis(100))) {
          if (record.offset() >= end) {
            return true; // written after the question: new input, not a backlog
          }
          examined++;
          if (settings.decoder().decode(sourceRecord(record)).isAccepted()) {
            return false;
          }
        }
      }
      return true;
    } catch (KafkaException e) { // includes timeouts and the wake-up of close()
      LOG.debug("Could not tell whether {} is caught up: {}", partition, e.toString());
      return false;
    }
  }

  private void seek(KafkaConsumer<byte[], byte[]> reader, TopicPartition partition, long position) {
    if (position >= 0) {
      reader.seek(partition, position);
    } else if (position == KafkaPartitionSplit.EARLIEST_OFFSET) {
      reader.seekToBeginning(List.of(partition));
    } else if (position == KafkaPartitionSplit.COMMITTED_OFFSET) {
      OffsetAndMetadata committed =
          reader.committed(Set.of(partition), settings.timeout()).get(partition);
      if (committed != null) {
        reader.seek(partition, committed.offset());
      } else if (settings.committedFallbackEarliest()) {
        reader.seekToBeginning(List.of(partition));
      } else {
        reader.seekToEnd(List.of(partition));
      }
    } else { // the latest-offset marker: the reader starts at the end, as of its start
      reader.seekToEnd(List.of(partition));
    }
  }

  private static SourceRecord sourceRecord(ConsumerRecord<byte[], byte[]> record) {
    return new SourceRecord(
        record.topic(),
        record.partition(),
        record.offset(),
        record.timestamp(),
        record.key(),
        record.value());
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    if (consumer == null) {
      Map<String, Object> properties = new HashMap<>(settings.clientProperties());
      properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
      properties.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
      properties.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
      properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
      consumer =
          new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
    return consumer;
  }

  private void closeConsumer() {
    KafkaConsumer<byte[], byte[]> current = consumer;
    if (current != null) {
      try {
        current.close(CloseOptions.timeout(Duration.ZERO));
      } catch (KafkaException e) {
        LOG.debug("Closing the log-end probe: {}", e.toString());
      }
    }
  }
}
