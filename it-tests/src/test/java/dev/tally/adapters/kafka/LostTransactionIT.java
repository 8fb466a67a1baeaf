package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tally.it.Await;
import dev.tally.stack.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.internal.FlinkKafkaInternalProducer;
import org.apache.flink.connector.kafka.sink.internal.KafkaCommitter;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link LostTransactionGuard} around the connector's own {@code KafkaCommitter}, against a real
 * broker, on real transactions: one the broker aborted before its commit, as after a restart that
 * took longer than the transaction timeout, and one it still holds, as in every normal commit and
 * in the recommit of a restored checkpoint; and one recommitted after a later producer took its
 * transactional id, as when one checkpoint is restored twice.
 *
 * <p>Why not a whole job: the loss needs the commit of a completed checkpoint to come later than
 * the transaction timeout, and a job offers no deterministic way to hold a committer between a
 * checkpoint's completion and its commit (the dead-letter committer has its own task, and commits
 * right when the checkpoint completes). So the writer's side is done here as the connector's writer
 * does it: a transactional producer, a record, a flush (the pre-commit at a checkpoint), and the
 * committable the checkpoint would hold; then the producer dies, as a task does.
 */
class LostTransactionIT {

  private static final String TOPIC = "dead-letters";

  private static KafkaBroker broker;

  @BeforeAll
  static void startBroker() throws Exception {
    Path dir =
        Files.createDirectories(Path.of("target", "lost-transaction-it"))
            .resolve(Long.toString(System.currentTimeMillis()))
            .toAbsolutePath();
    broker = KafkaBroker.start(dir);
    broker.createTopic(TOPIC, 1, Map.of("retention.ms", "-1"));
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void aTransactionTheBrokerAbortedBeforeItsCommitIsNeverSilent() throws Exception {
    String value = "lost-" + UUID.randomUUID();
    KafkaCommittable committable = precommitted(value, Duration.ofSeconds(1));
    awaitAbortedByTheBroker(committable.getTransactionalId());
    Counters counters = new Counters();
    Recorded request = new Recorded(committable);

    Throwable thrown = catchThrowable(() -> commit(false, counters, request));

    assertThat(request.knownFailure).as("the connector's own verdict").isNotNull();
    assertThat(committedValues()).doesNotContain(value);
    if (request.knownFailure instanceof ProducerFencedException) {
      // The broker bumped the epoch when it aborted: the response is that of a fenced commit.
      assertThat(counters.fenced.getCount()).isOne();
      assertThat(counters.lost.getCount()).isZero();
      assertThat(thrown).isNull();
    } else {
      assertThat(counters.lost.getCount()).isOne();
      assertThat(thrown)
          .isInstanceOf(SuppressRestartsException.class)
          .hasStackTraceContaining("Dead letters lost")
          .hasStackTraceContaining("transactional id " + committable.getTransactionalId())
          .hasStackTraceContaining("kafka.dead-letter.continue-after-lost-transactions=true");
    }
  }

  @Test
  void withTheLossAcknowledgedTheJobGoesOnAndTheTransactionIsCounted() throws Exception {
    KafkaCommittable committable = precommitted("lost-" + UUID.randomUUID(), Duration.ofSeconds(1));
    awaitAbortedByTheBroker(committable.getTransactionalId());
    Counters counters = new Counters();

    commit(true, counters, new Recorded(committable));

    assertThat(counters.lost.getCount() + counters.fenced.getCount()).isOne();
  }

  @Test
  void aRecommitAfterALaterProducerTookTheIdIsCountedAsFencedAndTheJobGoesOn() throws Exception {
    String value = "kept-" + UUID.randomUUID();
    KafkaCommittable committable = precommitted(value, Duration.ofMinutes(1));
    Counters counters = new Counters();
    commit(false, counters, new Recorded(committable));
    // A second restore of the same checkpoint, a rollback or a rescale: a later writer's producer
    // initialises the same transactional id before the restored committer recommits.
    try (FlinkKafkaInternalProducer<byte[], byte[]> later =
        new FlinkKafkaInternalProducer<>(producerProperties(), committable.getTransactionalId())) {
      later.initTransactions();
    }
    Recorded again = new Recorded(committable);

    commit(false, counters, again);

    assertThat(again.knownFailure).isInstanceOf(ProducerFencedException.class);
    assertThat(counters.fenced.getCount()).isOne();
    assertThat(counters.lost.getCount()).isZero();
    assertThat(committedValues()).contains(value);
  }

  @Test
  void aTransactionTheBrokerStillHoldsCommitsAndItsRecommitAfterARestoreIsNoLoss()
      throws Exception {
    String value = "kept-" + UUID.randomUUID();
    KafkaCommittable committable = precommitted(value, Duration.ofMinutes(1));
    Counters counters = new Counters();
    Recorded first = new Recorded(committable);
    Recorded again = new Recorded(committable);

    commit(false, counters, first);
    // A job restored from the checkpoint commits its transactions again, with a new committer.
    commit(false, counters, again);

    assertThat(counters.lost.getCount()).isZero();
    assertThat(counters.fenced.getCount()).isZero();
    assertThat(first.knownFailure).isNull();
    assertThat(again.knownFailure).isNull();
    assertThat(committedValues()).contains(value);
  }

  /**
   * What a checkpoint holds for a dead-letter transaction: one record written and flushed (the
   * writer's pre-commit), then the writer's producer gone without committing, as a failed task's.
   */
  private static KafkaCommittable precommitted(String value, Duration transactionTimeout) {
    Properties props = producerProperties();
    props.setProperty(
        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(transactionTimeout.toMillis()));
    String transactionalId = "lost-transaction-it-" + UUID.randomUUID();
    FlinkKafkaInternalProducer<byte[], byte[]> producer =
        new FlinkKafkaInternalProducer<>(props, transactionalId);
    producer.initTransactions();
    producer.beginTransaction();
    producer.send(new ProducerRecord<>(TOPIC, value.getBytes(StandardCharsets.UTF_8)));
    producer.flush();
    KafkaCommittable committable =
        new KafkaCommittable(producer.getProducerId(), producer.getEpoch(), transactionalId, null);
    producer.close(Duration.ZERO);
    return committable;
  }

  /** Commits through a new guard around a new committer of the connector's, then closes both. */
  private static void commit(boolean continueAfterLoss, Counters counters, Recorded request)
      throws Exception {
    LostTransactionGuard guard =
        new LostTransactionGuard(committer(), counters.lost, counters.fenced, continueAfterLoss);
    try {
      guard.commit(List.of(request));
    } finally {
      guard.close();
    }
  }

  /** The connector's committer, as {@code KafkaSink} creates it for exactly-once delivery. */
  private static Committer<KafkaCommittable> committer() {
    return new KafkaCommitter(
        producerProperties(), "lost-transaction-it", 0, 0, false, FlinkKafkaInternalProducer::new);
  }

  private static Properties producerProperties() {
    Properties props = new Properties();
    props.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    props.setProperty(
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.setProperty(
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  /** The broker aborts a timed-out transaction on its own, on its next expiry scan. */
  private static void awaitAbortedByTheBroker(String transactionalId) throws Exception {
    Properties props = new Properties();
    props.setProperty("bootstrap.servers", broker.bootstrapServers());
    try (Admin admin = Admin.create(props)) {
      Await.until(
          "the broker aborts the timed-out transaction " + transactionalId,
          Duration.ofMinutes(1),
          () -> {
            try {
              TransactionState state =
                  admin
                      .describeTransactions(List.of(transactionalId))
                      .description(transactionalId)
                      .get()
                      .state();
              return state == TransactionState.COMPLETE_ABORT || state == TransactionState.EMPTY;
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
    }
  }

  private static List<String> committedValues() {
    Properties props = new Properties();
    props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.setProperty(
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.setProperty(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      TopicPartition partition = new TopicPartition(TOPIC, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long end = consumer.endOffsets(List.of(partition)).get(partition);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (consumer.position(partition) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          values.add(new String(r.value(), StandardCharsets.UTF_8));
        }
      }
    }
    return values;
  }

  /** The guard's two counters. */
  private static final class Counters {
    final SimpleCounter lost = new SimpleCounter();
    final SimpleCounter fenced = new SimpleCounter();
  }

  /** A commit request as Flink's committer operator makes it, recording what it was told. */
  private static final class Recorded implements CommitRequest<KafkaCommittable> {
    private final KafkaCommittable committable;
    Throwable knownFailure;

    Recorded(KafkaCommittable committable) {
      this.committable = committable;
    }

    @Override
    public KafkaCommittable getCommittable() {
      return committable;
    }

    @Override
    public int getNumberOfRetries() {
      return 0;
    }

    @Override
    public void signalFailedWithKnownReason(Throwable failure) {
      knownFailure = failure;
    }

    @Override
    public void signalFailedWithUnknownReason(Throwable failure) {
      throw new IllegalStateException("commit failed", failure);
    }

    @Override
    public void retryLater() {
      throw new IllegalStateException("a retriable failure on a reachable broker");
    }

    @Override
    public void updateAndRetryLater(KafkaCommittable committable) {
      throw new IllegalStateException("not used by the Kafka committer");
    }

    @Override
    public void signalAlreadyCommitted() {}
  }
}
