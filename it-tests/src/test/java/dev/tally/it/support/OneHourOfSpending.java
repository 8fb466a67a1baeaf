package dev.tally.it.support;

import dev.tally.domain.fixtures.TransactionJson;
import dev.tally.domain.fixtures.Transactions;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A small input for tests of how the job reaches its services rather than what it counts: four
 * records of one hour on two partitions (alice pays 100 and 200 EUR, bob 5,000 USD, and one record
 * that is no JSON), all with a Kafka timestamp late in that hour; and the rows they make.
 */
public final class OneHourOfSpending {

  /** The hour every record falls in. */
  public static final Instant HOUR = Instant.parse("2026-01-15T10:00:00Z");

  private OneHourOfSpending() {}

  /** Writes the four records to partitions 0 and 1 of {@code topic}. */
  public static void produce(String bootstrapServers, String topic) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      send(producer, topic, 0, "alice", valid("alice", "EUR", 100, HOUR.plusSeconds(60)));
      send(producer, topic, 0, "alice", valid("alice", "EUR", 200, HOUR.plusSeconds(120)));
      send(producer, topic, 1, "bob", valid("bob", "USD", 5_000, HOUR.plusSeconds(180)));
      send(producer, topic, 1, "bob", "{not json".getBytes(StandardCharsets.UTF_8));
      producer.flush();
    }
  }

  /** The table's rows once the job has read the records; the record that is no JSON is a letter. */
  public static Map<SpendingRows.Key, SpendingRows.Totals> rows() {
    return Map.of(
        new SpendingRows.Key("alice", "EUR", HOUR),
        new SpendingRows.Totals(300, 2),
        new SpendingRows.Key("bob", "USD", HOUR),
        new SpendingRows.Totals(5_000, 1));
  }

  private static byte[] valid(String user, String currency, long amount, Instant at) {
    return TransactionJson.of(
            Transactions.aTransaction().user(user).currency(currency).amount(amount).at(at).build())
        .toBytes();
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer, String topic, int partition, String key, byte[] value)
      throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                topic,
                partition,
                HOUR.plusSeconds(3_590).toEpochMilli(),
                key.getBytes(StandardCharsets.UTF_8),
                value))
        .get();
  }
}
