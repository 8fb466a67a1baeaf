package dev.tally.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The local stack's services are real: Kafka keeps transactions and survives a restart, and an
 * Iceberg table created through the REST catalog stores its data in the S3-compatible store.
 */
class LocalStackIT {
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
  private static final Map<String, String> KEEP_FOREVER = Map.of("retention.ms", "-1");

  private static LocalStack stack;

  @BeforeAll
  static void startStack() throws IOException {
    // Under target/, not a @TempDir: the services' logs stay for diagnosis when a test fails.
    Path root =
        Files.createDirectories(Path.of("target", "local-stack"))
            .resolve("LocalStackIT-" + System.currentTimeMillis());
    stack = LocalStack.start(root);
    System.out.print(stack.describe());
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void aReadCommittedConsumerSeesCommittedTransactionsAndNotAbortedOnes() {
    String topic = "stack-it-transactions";
    stack.kafka().createTopic(topic, 2, KEEP_FOREVER);

    try (KafkaProducer<String, String> producer = transactionalProducer("stack-it-tx")) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "alice", "committed-1"));
      producer.send(new ProducerRecord<>(topic, "bob", "committed-2"));
      producer.send(new ProducerRecord<>(topic, "carol", "committed-3"));
      producer.commitTransaction();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "alice", "aborted"));
      producer.flush();
      producer.abortTransaction();
    }

    assertThat(readCommitted(topic))
        .containsExactlyInAnyOrder("committed-1", "committed-2", "committed-3");
  }

  @Test
  void committedRecordsSurviveABrokerRestart() {
    String topic = "stack-it-durable";
    stack.kafka().createTopic(topic, 1, KEEP_FOREVER);
    try (KafkaProducer<String, String> producer = transactionalProducer("stack-it-durable")) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "k", "before-restart"));
      producer.commitTransaction();
    }
    long pidBefore = stack.kafka().process().pid();

    stack.kafka().restart();

    assertThat(stack.kafka().process().pid()).isNotEqualTo(pidBefore);
    assertThat(readCommitted(topic)).containsExactly("before-restart");
  }

  @Test
  void aTableCreatedThroughTheRestCatalogKeepsItsDataInTheObjectStore() throws IOException {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "name", Types.StringType.get()));
    TableIdentifier id = TableIdentifier.of(Namespace.of("stack_it"), "people");

    try (RESTCatalog catalog = restCatalog()) {
      catalog.createNamespace(id.namespace());
      Table table = catalog.createTable(id, schema, PartitionSpec.unpartitioned());
      DataFile file =
          writeDataFile(
              table,
              List.of(row(schema, 1L, "ada"), row(schema, 2L, "grace"), row(schema, 3L, "edsger")));
      table.newAppend().appendFile(file).commit();

      assertThat(file.location()).startsWith(stack.catalog().warehouse() + "/stack_it/people/");
      assertThat(objectsUnder(stack.objectStore().bucket() + "/warehouse/stack_it/people"))
          .anyMatch(object -> object.endsWith(".parquet"))
          .anyMatch(object -> object.endsWith(".metadata.json"));
    }

    // A second client sees the commit: the catalog, not a client cache, holds the table state.
    try (RESTCatalog catalog = restCatalog()) {
      Table table = catalog.loadTable(id);
      assertThat(table.currentSnapshot().summary()).containsEntry("added-records", "3");
      List<String> rows = new ArrayList<>();
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        records.forEach(record -> rows.add(record.getField("id") + ":" + record.getField("name")));
      }
      assertThat(rows).containsExactlyInAnyOrder("1:ada", "2:grace", "3:edsger");
    }
  }

  private static RESTCatalog restCatalog() {
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("stack-it", stack.catalog().clientProperties());
    return catalog;
  }

  private static Record row(Schema schema, long id, String name) {
    GenericRecord record = GenericRecord.create(schema);
    record.setField("id", id);
    record.setField("name", name);
    return record;
  }

  private static DataFile writeDataFile(Table table, List<Record> rows) throws IOException {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = writers.newDataWriter(files.newOutputFile(), table.spec(), null);
    try (writer) {
      rows.forEach(writer::write);
    }
    return writer.toDataFile();
  }

  /** Object keys below {@code prefix}, read from S3Proxy's directory: proof the bytes are there. */
  private static List<String> objectsUnder(String prefix) throws IOException {
    Path dir = stack.objectStore().dataDirectory().resolve(prefix);
    assertThat(dir).isDirectory();
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).map(Path::toString).toList();
    }
  }

  private static KafkaProducer<String, String> transactionalProducer(String transactionalId) {
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
    properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer());
  }

  /** Every value a read_committed consumer sees from the start to the last stable offset. */
  private static List<String> readCommitted(String topic) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
    properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(properties, new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, READ_TIMEOUT).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      // Under read_committed the end offsets are the last stable offsets: nothing open remains.
      Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions, READ_TIMEOUT));
      List<String> values = new ArrayList<>();
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p, READ_TIMEOUT) < end.get(p))) {
        if (System.nanoTime() - deadline >= 0) {
          fail("did not reach the end offsets " + end + " of " + topic + "; read " + values);
        }
        consumer.poll(Duration.ofMillis(200)).forEach(record -> values.add(record.value()));
      }
      return values;
    }
  }
}
