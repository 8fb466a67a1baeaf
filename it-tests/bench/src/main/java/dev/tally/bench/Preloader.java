package dev.tally.bench;

import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
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

  /** Sends the whole workload and flushes; returns the records sent. */
  static long preload(String bootstrap, String topic, Workload workload) {
    AtomicReference<Exception> failure = new AtomicReference<>();
    long sent = 0;
    try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap, 50)) {
      Workload.Event event;
      while ((event = workload.next()) != null) {
        producer.send(
            new ProducerRecord<>(topic, event.key(), event.value()),
            (metadata, e) -> {
              if (e != null) {
                failure.compareAndSet(null, e);
              }
            });
        sent++;
        if (failure.get() != null) {
          break;
        }
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("preloading " + topic + " failed", failure.get());
    }
    return sent;
  }
}
