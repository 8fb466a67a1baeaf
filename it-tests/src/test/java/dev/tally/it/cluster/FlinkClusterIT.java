package dev.tally.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.adapters.kafka.DeadLetterHeaders;
import dev.tally.it.support.SpendingRows;
import dev.tally.it.support.SpendingRows.Key;
import dev.tally.it.support.SpendingRows.Totals;
import dev.tally.stack.FlinkCluster;
import dev.tally.stack.LocalStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tally's job jar on a real multi-process Flink standalone cluster (a JobManager and two
 * TaskManagers, each its own JVM), submitted, stopped and cancelled through Flink's own CLI front
 * end, against the real local stack (Kafka, an Iceberg REST catalog, an S3-compatible store). Each
 * scenario checks the Iceberg table against an oracle computed here from the specification's rules,
 * and the dead-letter topic for every rejected record exactly once.
 */
class FlinkClusterIT {

  private static final int PARTITIONS = 8;
  private static final int USERS = 240;
  private static final int EVENTS = 60_000;
  private static final String[] CURRENCIES = {"EUR", "USD", "GBP"};
  // In the past: the broker refuses record timestamps more than an hour ahead of its clock.
  private static final Instant BASE = Instant.parse("2026-01-15T00:00:00Z");
  private static final Duration SPAN = Duration.ofHours(4);
  // One event per partition far ahead: in a streaming run it moves every partition's watermark past
  // all real windows, while its own window stays open (so it never reaches the table).
  private static final Instant FLUSH = BASE.plus(Duration.ofHours(10));

  private static Path root;
  private static LocalStack stack;
  private static FlinkCluster cluster;
  private static RESTCatalog catalog;
  private static Path jobJar;

  @BeforeAll
  static void startStackAndCluster() throws IOException {
    jobJar = Path.of(System.getProperty("tally.job.jar"));
    assertThat(jobJar).as("built by runtime-flink's package phase").isRegularFile();
    // Under target/, not a @TempDir: the logs of every process stay for diagnosis.
    root =
        Files.createDirectories(Path.of("target", "flink-cluster-it"))
            .resolve(Long.toString(System.currentTimeMillis()))
            .toAbsolutePath();
    stack = LocalStack.start(root.resolve("stack"));
    Map<String, String> aws = stack.objectStore().awsClientEnvironment();
    long started = System.nanoTime();
    cluster = FlinkCluster.start(root.resolve("flink"), 2, 2, aws);
    System.out.printf(
        "Flink cluster (1 JobManager, 2 TaskManagers) ready in %d ms at %s%n",
        Duration.ofNanos(System.nanoTime() - started).toMillis(), cluster.restAddress());
    // The reader's S3FileIO takes keys from the AWS SDK's default chain: these system properties.
    System.setProperty("aws.accessKeyId", stack.objectStore().accessKey());
    System.setProperty("aws.secretAccessKey", stack.objectStore().secretKey());
    catalog = new RESTCatalog();
    catalog.initialize("reader", stack.catalog().clientProperties());
  }

  @AfterAll
  static void stopAll() throws IOException {
    if (catalog != null) {
      catalog.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aBoundedJobSubmittedWithTheCliWritesExactlyTheOracle() throws Exception {
    Scenario s = new Scenario("submit", Dataset.generate(1));
    Map<Rejection, Long> offsets = s.produce(s.data.inputs, Duration.ZERO);
    String jobId = cluster.submit(jobJar, 2, null, s.jobArgs(true));

    await("the bounded job finishes", Duration.ofMinutes(3), () -> isFinal(jobId));
    assertThat(cluster.jobStatus(jobId)).isEqualTo("FINISHED");
    // Bounded: the final watermark closes every window, the flush windows included.
    assertThat(s.table()).isEqualTo(s.data.oracle);
    s.assertDeadLettersExactlyOnce(offsets);
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aKilledTaskManagerIsReplacedAndTheJobRecoversExactlyOnce() throws Exception {
    Scenario s = new Scenario("failover", Dataset.generate(2));
    String jobId = cluster.submit(jobJar, 2, null, s.jobArgs(false));
    await("all tasks run", Duration.ofMinutes(2), () -> cluster.allTasksRunning(jobId));
    // Traffic arrives while the job runs, so the kill hits it mid-stream.
    CompletableFuture<Map<Rejection, Long>> producing =
        CompletableFuture.supplyAsync(() -> s.produce(s.data.inputs, Duration.ofSeconds(15)));
    await(
        "a first completed checkpoint",
        Duration.ofMinutes(2),
        () -> cluster.completedCheckpoints(jobId) >= 1);

    Set<String> hosting = cluster.taskManagersOf(jobId);
    int victim = -1;
    for (int i = 0; i < cluster.taskManagers().size(); i++) {
      if (cluster.taskManagers().get(i).isAlive() && hosting.contains(cluster.taskManagerId(i))) {
        victim = i;
      }
    }
    assertThat(victim).as("a live TaskManager running tasks of %s", hosting).isNotNegative();
    long killedAtMillis = System.currentTimeMillis();
    long killedAt = System.nanoTime();
    cluster.killTaskManager(victim);
    assertThat(cluster.taskManagers().get(victim).isAlive()).isFalse();
    cluster.startTaskManager();
    await(
        "the job runs again with every task",
        Duration.ofMinutes(2),
        () ->
            cluster.lastTransitionTo(jobId, "RUNNING") > killedAtMillis
                && cluster.allTasksRunning(jobId));
    Duration recovery = Duration.ofNanos(System.nanoTime() - killedAt);
    System.out.printf(
        "Recovery after kill -9 of %s: %d ms (kill -> job RUNNING with all tasks running;"
            + " Flink's RESTARTING at +%d ms, RUNNING at +%d ms)%n",
        cluster.taskManagerId(victim),
        recovery.toMillis(),
        cluster.lastTransitionTo(jobId, "RESTARTING") - killedAtMillis,
        cluster.lastTransitionTo(jobId, "RUNNING") - killedAtMillis);
    assertThat(cluster.lastTransitionTo(jobId, "RESTARTING")).isGreaterThan(killedAtMillis);
    assertThat(cluster.restoredCheckpoints(jobId)).as("restored from a checkpoint").isPositive();

    Map<Rejection, Long> offsets = producing.get(2, TimeUnit.MINUTES);
    Map<Key, Totals> expected = s.data.closedWindowsOracle();
    awaitTable(s, expected);
    s.assertDeadLettersExactlyOnce(offsets);
    cluster.cancel(jobId);
    await("the job is cancelled", Duration.ofMinutes(1), () -> isFinal(jobId));
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void stopWithSavepointAndResumeWithParallelismThree() throws Exception {
    Scenario s = new Scenario("savepoint", Dataset.generate(3));
    List<Input> all = s.data.inputs;
    List<Input> first = all.subList(0, all.size() / 2);
    List<Input> second = all.subList(all.size() / 2, all.size());
    Map<Rejection, Long> offsets = new HashMap<>(s.produce(first, Duration.ZERO));
    String jobId = cluster.submit(jobJar, 2, null, s.jobArgs(false));
    await(
        "a first completed checkpoint",
        Duration.ofMinutes(2),
        () -> cluster.completedCheckpoints(jobId) >= 1);

    String savepoint = cluster.stopWithSavepoint(jobId, root.resolve("savepoints"));
    assertThat(cluster.jobStatus(jobId)).isEqualTo("FINISHED");
    offsets.putAll(s.produce(second, Duration.ZERO));
    String resumed = cluster.submit(jobJar, 3, savepoint, s.jobArgs(false));
    await("all tasks run", Duration.ofMinutes(2), () -> cluster.allTasksRunning(resumed));
    assertThat(cluster.taskManagersOf(resumed)).hasSize(2);
    assertThat(cluster.restoredCheckpoints(resumed)).as("started from the savepoint").isOne();

    awaitTable(s, s.data.closedWindowsOracle());
    s.assertDeadLettersExactlyOnce(offsets);
    cluster.cancel(resumed);
    await("the job is cancelled", Duration.ofMinutes(1), () -> isFinal(resumed));
  }

  private static boolean isFinal(String jobId) {
    String status = cluster.jobStatus(jobId);
    return status.equals("FINISHED") || status.equals("FAILED") || status.equals("CANCELED");
  }

  private static void awaitTable(Scenario s, Map<Key, Totals> expected) {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    Map<Key, Totals> table = Map.of();
    while (System.nanoTime() < deadline) {
      table = s.tableIfExists();
      if (table.equals(expected)) {
        return;
      }
      sleep(Duration.ofSeconds(1));
    }
    assertThat(table).as("the Iceberg table within 2 minutes").isEqualTo(expected);
  }

  private static void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        last = e; // e.g. the job is not yet known to the JobManager
      }
      sleep(Duration.ofMillis(100));
    }
    throw new AssertionError("timed out waiting for " + what + " after " + timeout, last);
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** One scenario's topics, table and configuration on the shared stack and cluster. */
  private static final class Scenario {
    final String name;
    final Dataset data;
    final String topic;
    final String dlq;

    Scenario(String name, Dataset data) {
      this.name = name;
      this.data = data;
      this.topic = "tx-" + name;
      this.dlq = topic + ".dlq";
      stack.kafka().createTopic(topic, PARTITIONS, Map.of("retention.ms", "-1"));
      stack.kafka().createTopic(dlq, 1, Map.of("retention.ms", "-1"));
    }

    String[] jobArgs(boolean bounded) {
      Path dir = root.resolve(name);
      String yaml =
          """
          kafka:
            bootstrap-servers: %s
            source:
              topics: [%s]
              group-id: tally-%s
              startup-mode: earliest
              bounded: %s
            dead-letter:
              topic: %s
              transactional-id-prefix: tally-%s-dlq
          watermarks:
            out-of-orderness: 5s
            idle-timeout: 30s
          iceberg:
            catalog:
              type: rest
              uri: %s
              warehouse: %s
            storage:
              type: s3
              s3-endpoint: %s
              s3-path-style-access: true
              region: %s
            table: spending_%s
          state:
            checkpoint-directory: %s
          checkpoints:
            interval: 1s
          job:
            name: tally-%s
          """
              .formatted(
                  stack.kafka().bootstrapServers(),
                  topic,
                  name,
                  bounded,
                  dlq,
                  name,
                  stack.catalog().uri(),
                  stack.catalog().warehouse(),
                  stack.objectStore().endpoint(),
                  stack.objectStore().region(),
                  name,
                  dir.resolve("checkpoints").toUri(),
                  name);
      try {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("tally.yaml"), yaml, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return new String[] {"--config", dir.resolve("tally.yaml").toString()};
    }

    /**
     * Produces the inputs in order, spread evenly over {@code pace}; returns the (partition,
     * offset) of every record that must be rejected.
     */
    Map<Rejection, Long> produce(List<Input> inputs, Duration pace) {
      Properties props = new Properties();
      props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
      props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      props.put(ProducerConfig.ACKS_CONFIG, "all");
      props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
      List<Future<RecordMetadata>> rejected = new ArrayList<>();
      List<Input> rejectedInputs = new ArrayList<>();
      long start = System.nanoTime();
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
        for (int i = 0; i < inputs.size(); i++) {
          Input in = inputs.get(i);
          Future<RecordMetadata> sent =
              producer.send(
                  new ProducerRecord<>(
                      topic,
                      in.partition,
                      in.timestamp,
                      in.key.getBytes(StandardCharsets.UTF_8),
                      in.value));
          if (in.rejected != null) {
            rejected.add(sent);
            rejectedInputs.add(in);
          }
          if (!pace.isZero() && i % 500 == 499) {
            long due = start + pace.toNanos() * (i + 1) / inputs.size();
            long wait = due - System.nanoTime();
            if (wait > 0) {
              sleep(Duration.ofNanos(wait));
            }
          }
        }
        producer.flush();
        Map<Rejection, Long> offsets = new HashMap<>();
        for (int i = 0; i < rejected.size(); i++) {
          RecordMetadata meta = rejected.get(i).get();
          offsets.put(
              new Rejection(meta.partition(), meta.offset(), rejectedInputs.get(i).rejected), 1L);
        }
        return offsets;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } catch (ExecutionException e) {
        throw new IllegalStateException(e);
      }
    }

    /** The dead-letter topic, read_committed, holds each rejected record once and nothing else. */
    void assertDeadLettersExactlyOnce(Map<Rejection, Long> expected) {
      Properties props = new Properties();
      props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
      props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      props.put(
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      props.put(
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      Map<Rejection, Long> seen = new HashMap<>();
      try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
        TopicPartition partition = new TopicPartition(dlq, 0);
        consumer.assign(List.of(partition));
        consumer.seekToBeginning(List.of(partition));
        long total = expected.size();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        long quietUntil = Long.MAX_VALUE;
        while (System.nanoTime() < Math.min(deadline, quietUntil)) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            assertThat(header(r, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo(topic);
            Rejection row =
                new Rejection(
                    Integer.parseInt(header(r, DeadLetterHeaders.SOURCE_PARTITION)),
                    Long.parseLong(header(r, DeadLetterHeaders.SOURCE_OFFSET)),
                    header(r, DeadLetterHeaders.REASON));
            seen.merge(row, 1L, Long::sum);
          }
          if (seen.values().stream().mapToLong(Long::longValue).sum() >= total
              && quietUntil == Long.MAX_VALUE) {
            // Everything expected is there: keep reading a little to catch any duplicate.
            quietUntil = System.nanoTime() + Duration.ofSeconds(3).toNanos();
          }
        }
      }
      assertThat(seen).as("dead letters (partition, offset, reason) -> copies").isEqualTo(expected);
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
      Header header = record.headers().lastHeader(name);
      assertThat(header).as("header %s", name).isNotNull();
      return new String(header.value(), StandardCharsets.UTF_8);
    }

    Map<Key, Totals> table() {
      return SpendingRows.readTallyTable(
          catalog, TableIdentifier.of("analytics", "spending_" + name));
    }

    Map<Key, Totals> tableIfExists() {
      if (!catalog.tableExists(TableIdentifier.of("analytics", "spending_" + name))) {
        return Map.of();
      }
      return table();
    }
  }

  /** A rejected record: where it was in the source topic and why. */
  record Rejection(int partition, long offset, String reason) {}

  /** A record to produce: its partition (by user), key, value, timestamp, and expected verdict. */
  record Input(int partition, String key, byte[] value, long timestamp, String rejected) {}

  /**
   * A deterministic dataset and its oracle. Each user's events are in one partition and in order of
   * production; event times run forward over four hours, each up to 4 s early (out of order within
   * the 5 s bound, so nothing is ever late); exact duplicates and conflicting duplicates follow
   * their original in the same partition; about 1% bad records.
   */
  static final class Dataset {
    final List<Input> inputs = new ArrayList<>();
    final Map<Key, Totals> oracle = new TreeMap<>();

    static Dataset generate(long seed) {
      Dataset d = generateUnchecked(seed);
      // Guard against a vacuous comparison: every scenario has real volume and every verdict.
      assertThat(d.oracle).hasSizeGreaterThan(2_000);
      assertThat(d.inputs).hasSizeGreaterThan(EVENTS);
      assertThat(d.inputs.stream().map(Input::rejected).distinct())
          .contains("MALFORMED", "MISSING_FIELD", "INVALID_FIELD", "CONFLICTING_DUPLICATE");
      return d;
    }

    private static Dataset generateUnchecked(long seed) {
      Dataset d = new Dataset();
      Random random = new Random(seed);
      long step = SPAN.toMillis() / EVENTS;
      Set<String> seenIds = new HashSet<>();
      for (int i = 0; i < EVENTS; i++) {
        long t = BASE.toEpochMilli() + i * step;
        int user = random.nextInt(USERS);
        String userId = "user-" + user;
        int partition = user % PARTITIONS;
        long eventTime = Math.max(BASE.toEpochMilli(), t - random.nextInt(4_000));
        double kind = random.nextDouble();
        if (kind < 0.01) {
          String[] bad = {
            "{not json",
            "{\"transaction_id\":\"b-" + i + "\",\"user_id\":\"" + userId + "\"}",
            json("b-" + i, userId, 100, "usd", eventTime)
          };
          String[] reasons = {"MALFORMED", "MISSING_FIELD", "INVALID_FIELD"};
          int v = i % 3;
          d.add(partition, userId, bad[v], eventTime, reasons[v]);
          continue;
        }
        String txId = "tx-" + seed + "-" + i;
        long amount = 1 + random.nextInt(100_000);
        String currency = CURRENCIES[random.nextInt(CURRENCIES.length)];
        String value = json(txId, userId, amount, currency, eventTime);
        assertThat(seenIds.add(txId)).isTrue();
        d.add(partition, userId, value, eventTime, null);
        d.count(userId, currency, eventTime, amount);
        double dup = random.nextDouble();
        if (dup < 0.03) {
          d.add(partition, userId, value, eventTime, null); // exact duplicate: dropped
        } else if (dup < 0.05) {
          d.add(
              partition,
              userId,
              json(txId, userId, amount + 1, currency, eventTime),
              eventTime,
              "CONFLICTING_DUPLICATE");
        }
      }
      for (int p = 0; p < PARTITIONS; p++) {
        String userId = "flush-" + p;
        d.add(
            p,
            userId,
            json("flush-" + p, userId, 1, "EUR", FLUSH.toEpochMilli()),
            FLUSH.toEpochMilli(),
            null);
        d.count(userId, "EUR", FLUSH.toEpochMilli(), 1);
      }
      return d;
    }

    /** The oracle without the flush windows, which a streaming run never closes. */
    Map<Key, Totals> closedWindowsOracle() {
      Map<Key, Totals> closed = new TreeMap<>(oracle);
      closed.keySet().removeIf(k -> !k.windowStart().isBefore(FLUSH));
      return closed;
    }

    private void add(int partition, String key, String value, long timestamp, String rejected) {
      inputs.add(
          new Input(partition, key, value.getBytes(StandardCharsets.UTF_8), timestamp, rejected));
    }

    private void count(String userId, String currency, long eventTime, long amount) {
      Instant window = Instant.ofEpochMilli(eventTime - Math.floorMod(eventTime, 3_600_000L));
      oracle.merge(new Key(userId, currency, window), new Totals(amount, 1), Totals::plus);
    }

    private static String json(
        String txId, String userId, long amount, String currency, long eventTime) {
      return "{\"transaction_id\":\""
          + txId
          + "\",\"user_id\":\""
          + userId
          + "\",\"amount_cents\":"
          + amount
          + ",\"currency\":\""
          + currency
          + "\",\"event_timestamp\":\""
          + Instant.ofEpochMilli(eventTime)
          + "\"}";
    }
  }
}
