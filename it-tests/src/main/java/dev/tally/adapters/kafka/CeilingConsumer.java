package dev.tally.adapters.kafka;

import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.TransactionValidator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The bench's ceiling leg (run in its own JVM by {@code dev.tally.bench}): plain Kafka consumers,
 * one per thread, reading a topic from its start to the end offsets of the moment it starts, and
 * decoding every record with the very decoder Tally's source runs. No Flink: what one machine can
 * do before any state, shuffle, checkpoint or sink.
 *
 * <p>It lives in the Kafka adapter's package, on the bench's side of the build, only to reach the
 * package-private decoder without making it public for everyone.
 *
 * <p>Prints one line, {@code CEILING records=… accepted=… amountSum=… processingNanos=…}; the
 * processing time runs from just before the first poll to the last record decoded.
 */
public final class CeilingConsumer {

  private CeilingConsumer() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int threads = Integer.parseInt(args[2]);

    List<TopicPartition> partitions = new ArrayList<>();
    Map<TopicPartition, Long> ends;
    try (KafkaConsumer<byte[], byte[]> probe = consumer(bootstrap)) {
      for (PartitionInfo info : probe.partitionsFor(topic)) {
        partitions.add(new TopicPartition(topic, info.partition()));
      }
      ends = probe.endOffsets(partitions);
    }
    List<List<TopicPartition>> shares = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      shares.add(new ArrayList<>());
    }
    for (int i = 0; i < partitions.size(); i++) {
      shares.get(i % threads).add(partitions.get(i));
    }

    AtomicLong records = new AtomicLong();
    AtomicLong accepted = new AtomicLong();
    AtomicLong amountSum = new AtomicLong();
    List<Thread> workers = new ArrayList<>();
    long started = System.nanoTime();
    for (List<TopicPartition> share : shares) {
      Thread worker =
          new Thread(
              () -> {
                long[] counts = read(bootstrap, share, ends);
                records.addAndGet(counts[0]);
                accepted.addAndGet(counts[1]);
                amountSum.addAndGet(counts[2]);
              },
              "ceiling-" + workers.size());
      worker.start();
      workers.add(worker);
    }
    for (Thread worker : workers) {
      worker.join();
    }
    long nanos = System.nanoTime() - started;
    System.out.println(
        "CEILING records="
            + records.get()
            + " accepted="
            + accepted.get()
            + " amountSum="
            + amountSum.get()
            + " processingNanos="
            + nanos);
  }

  private static long[] read(
      String bootstrap, List<TopicPartition> share, Map<TopicPartition, Long> ends) {
    TransactionDecoder decoder =
        new TransactionDecoder(
            TransactionValidator.withDefaults(), TransactionDecoder.DEFAULT_MAX_RECORD_BYTES);
    long records = 0;
    long accepted = 0;
    long amountSum = 0;
    if (share.isEmpty()) {
      return new long[] {0, 0, 0};
    }
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
      consumer.assign(share);
      consumer.seekToBeginning(share);
      Map<TopicPartition, Long> remaining = new HashMap<>();
      for (TopicPartition partition : share) {
        if (ends.get(partition) > 0) {
          remaining.put(partition, ends.get(partition));
        }
      }
      while (!remaining.isEmpty()) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          TopicPartition partition = new TopicPartition(record.topic(), record.partition());
          Long end = remaining.get(partition);
          if (end == null || record.offset() >= end) {
            continue;
          }
          records++;
          DecodedRecord decoded =
              decoder.decode(
                  new SourceRecord(
                      record.topic(),
                      record.partition(),
                      record.offset(),
                      record.timestamp(),
                      record.key(),
                      record.value()));
          if (decoded.isAccepted()) {
            accepted++;
            amountSum += decoded.accepted().transaction().amountCents();
          }
          if (record.offset() + 1 >= end) {
            remaining.remove(partition);
          }
        }
      }
    }
    return new long[] {records, accepted, amountSum};
  }

  private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("key.deserializer", ByteArrayDeserializer.class.getName());
    props.put("value.deserializer", ByteArrayDeserializer.class.getName());
    props.put("enable.auto.commit", "false");
    props.put("auto.offset.reset", "earliest");
    return new KafkaConsumer<>(props);
  }
}
