package dev.tally.it.oracle;

import dev.tally.adapters.kafka.DeadLetterHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a dead-letter topic as a downstream consumer would, {@code read_committed}, and counts the
 * copies of each (source partition, source offset, reason).
 */
public final class DeadLetterReader {

  private DeadLetterReader() {}

  /**
   * Everything committed in partition 0 of {@code dlq}. Reads at least until {@code expected}
   * letters have arrived (or {@code timeout} passed) and then to the end and on for {@code quiet},
   * so copies beyond the expected ones are seen too.
   *
   * @throws AssertionError if a letter lacks a header or names another source topic
   */
  public static Map<Rejection, Long> read(
      String bootstrapServers,
      String dlq,
      String sourceTopic,
      long expected,
      Duration timeout,
      Duration quiet) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    Map<Rejection, Long> seen = new HashMap<>();
    long total = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      TopicPartition partition = new TopicPartition(dlq, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long deadline = System.nanoTime() + timeout.toNanos();
      long quietUntil = Long.MAX_VALUE;
      while (System.nanoTime() < Math.min(deadline, quietUntil)) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          String source = header(r, DeadLetterHeaders.SOURCE_TOPIC);
          if (!sourceTopic.equals(source)) {
            throw new AssertionError("a dead letter from " + source + " in " + dlq);
          }
          Rejection row =
              new Rejection(
                  Integer.parseInt(header(r, DeadLetterHeaders.SOURCE_PARTITION)),
                  Long.parseLong(header(r, DeadLetterHeaders.SOURCE_OFFSET)),
                  header(r, DeadLetterHeaders.REASON));
          seen.merge(row, 1L, Long::sum);
          total++;
        }
        if (total >= expected && quietUntil == Long.MAX_VALUE) {
          quietUntil = System.nanoTime() + quiet.toNanos();
        }
      }
    }
    return seen;
  }

  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    if (header == null) {
      throw new AssertionError("a dead letter without header " + name + " at " + record.offset());
    }
    return new String(header.value(), StandardCharsets.UTF_8);
  }
}
