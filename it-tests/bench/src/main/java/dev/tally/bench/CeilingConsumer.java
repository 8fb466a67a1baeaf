package dev.tally.bench;

import dev.tally.adapters.kafka.DecodedRecord;
import dev.tally.adapters.kafka.TransactionDecoding;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.stack.HelpOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The bench's ceiling leg (run in its own JVM by {@link CeilingLeg}): plain Kafka consumers, one
 * per thread, reading a topic from its start to the end offsets of the moment it starts, and
 * decoding every record with the very decoder Tally's source runs ({@link TransactionDecoding}). No
 * Flink: what one machine can do before any state, shuffle, checkpoint or sink.
 *
 * <p>Prints one line, {@code CEILING records=… accepted=… amountSum=… processingNanos=…}; the
 * processing time runs from just before the first poll to the last record decoded.
 */
@Command(
    name = "CeilingConsumer",
    description = "Reads and decodes a topic to its current end with plain Kafka consumers.")
public final class CeilingConsumer implements Callable<Integer> {
  @Mixin private HelpOption help;

  @Option(
      names = "--bootstrap-servers",
      required = true,
      paramLabel = "HOST:PORT",
      description = "The Kafka cluster.")
  private String bootstrap;

  @Option(names = "--topic", required = true, description = "The topic to read.")
  private String topic;

  @Option(
      names = "--threads",
      required = true,
      paramLabel = "N",
      description = "Consumers, one per thread; the partitions are spread over them.")
  private int threads;

  private CeilingConsumer() {}

  /** Reads the topic and prints the result line; {@code --help} for the options. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new CeilingConsumer()).execute(args));
  }

  @Override
  public Integer call() throws Exception {

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
    return 0;
  }

  private static long[] read(
      String bootstrap, List<TopicPartition> share, Map<TopicPartition, Long> ends) {
    Function<SourceRecord, DecodedRecord> decoder = TransactionDecoding.withDefaults();
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
              decoder.apply(
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
