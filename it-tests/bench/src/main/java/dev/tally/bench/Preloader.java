package dev.tally.bench;

import dev.tally.it.oracle.Input;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Produces workload events to Kafka, keyed by user (the usual producer key). */
final class Preloader {

  private Preloader() {}

  /**
   * A producer set for throughput, not latency: large batches, lz4, one acknowledgement. The
   * topic's data is what every leg reads, so nothing about it is left to chance: a failed send
   * fails the run.
   */
  static KafkaProducer<byte[], byte[]> producer(String bootstrap, int lingerMillis) {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    props.put("linger.ms", Integer.toString(lingerMillis));
    props.put("batch.size", Integer.toString(512 * 1024));
    props.put("buffer.memory", Long.toString(256L * 1024 * 1024));
    props.put("compression.type", "lz4");
    props.put("acks", "1");
    props.put("enable.idempotence", "false");
    props.put("max.in.flight.requests.per.connection", "1");
    return new KafkaProducer<>(props);
  }

  /**
   * Sends a dataset's records, each to its own partition with its own timestamp, in order, and
   * flushes; returns the records sent.
   */
  static long preload(String bootstrap, String topic, List<Input> inputs) {
    return send(
        bootstrap,
        topic,
        inputs.stream()
            .map(i -> new ProducerRecord<>(topic, i.partition(), i.timestamp(), i.key(), i.value()))
            .iterator());
  }

  /** Sends the whole workload and flushes; returns the records sent. */
  static long preload(String bootstrap, String topic, Workload workload) {
    return send(
        bootstrap,
        topic,
        Stream.generate(workload::next)
            .takeWhile(Objects::nonNull)
            .map(e -> new ProducerRecord<>(topic, e.key(), e.value()))
            .iterator());
  }

  private static long send(
      String bootstrap, String topic, Iterator<ProducerRecord<byte[], byte[]>> records) {
    AtomicReference<Exception> failure = new AtomicReference<>();
    long sent = 0;
    try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap, 50)) {
      while (records.hasNext() && failure.get() == null) {
        producer.send(
            records.next(),
            (metadata, e) -> {
              if (e != null) {
                failure.compareAndSet(null, e);
              }
            });
        sent++;
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("preloading " + topic + " failed", failure.get());
    }
    return sent;
  }
}
