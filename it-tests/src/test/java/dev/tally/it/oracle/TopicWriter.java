package dev.tally.it.oracle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Writes a dataset's records to a topic and learns where the ones to be rejected landed. */
public final class TopicWriter {

  private TopicWriter() {}

  /** The end offset of every partition {@code inputs} go to. */
  private static Map<TopicPartition, Long> endOffsets(
      String bootstrapServers, String topic, List<Input> inputs) {
    Set<TopicPartition> partitions = new HashSet<>();
    for (Input in : inputs) {
      partitions.add(new TopicPartition(topic, in.partition()));
    }
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      return consumer.endOffsets(partitions);
    }
  }

  /** Every record landed once: each partition grew by exactly the records sent to it. */
  private static void checkEndOffsets(
      String bootstrapServers, String topic, List<Input> inputs, Map<TopicPartition, Long> before) {
    Map<TopicPartition, Long> sent = new HashMap<>();
    for (Input in : inputs) {
      sent.merge(new TopicPartition(topic, in.partition()), 1L, Long::sum);
    }
    Map<TopicPartition, Long> after = endOffsets(bootstrapServers, topic, inputs);
    for (Map.Entry<TopicPartition, Long> e : sent.entrySet()) {
      long added = after.get(e.getKey()) - before.get(e.getKey());
      if (added != e.getValue()) {
        throw new IllegalStateException(
            e.getKey() + " grew by " + added + " records, " + e.getValue() + " were sent");
      }
    }
  }

  /**
   * Produces {@code inputs} in order (idempotent, acks=all), spread evenly over {@code pace}.
   *
   * @return the (partition, offset, reason) of every record that must be rejected, each mapped to
   *     1: the dead-letter topic's exact expected content
   */
  public static Map<Rejection, Long> produce(
      String bootstrapServers, String topic, List<Input> inputs, Duration pace) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, "131072");
    // A dataset's oversized records, and room for their batch.
    props.put(
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
        Integer.toString(2 * SpendingDataset.MAX_RECORD_BYTES));
    // One request in flight: right after a topic's creation the broker may answer the first batches
    // NOT_LEADER_OR_FOLLOWER, and with several in flight the idempotent producer's retry then ran
    // into OutOfOrderSequenceException until its delivery timeout (Kafka 4.2, a busy machine).
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    Map<TopicPartition, Long> before = endOffsets(bootstrapServers, topic, inputs);
    List<Future<RecordMetadata>> rejected = new ArrayList<>();
    List<Input> rejectedInputs = new ArrayList<>();
    long start = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (int i = 0; i < inputs.size(); i++) {
        Input in = inputs.get(i);
        Future<RecordMetadata> sent =
            producer.send(
                new ProducerRecord<>(topic, in.partition(), in.timestamp(), in.key(), in.value()));
        if (in.rejected() != null) {
          rejected.add(sent);
          rejectedInputs.add(in);
        }
        if (!pace.isZero() && i % 500 == 499) {
          long wait = start + pace.toNanos() * (i + 1) / inputs.size() - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
        }
      }
      producer.flush();
      checkEndOffsets(bootstrapServers, topic, inputs, before);
      Map<Rejection, Long> offsets = new HashMap<>();
      for (int i = 0; i < rejected.size(); i++) {
        RecordMetadata meta = rejected.get(i).get();
        offsets.put(
            new Rejection(meta.partition(), meta.offset(), rejectedInputs.get(i).rejected()), 1L);
      }
      return offsets;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }
}
