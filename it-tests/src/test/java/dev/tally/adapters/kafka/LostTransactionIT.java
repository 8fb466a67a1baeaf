package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tally.it.Await;
import dev.tally.stack.KafkaBroker;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.UUID;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobInfo;
import org.apache.flink.api.common.JobInfoImpl;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.internal.FlinkKafkaInternalProducer;
import org.apache.flink.connector.kafka.sink.internal.KafkaCommitter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.SinkCommitterMetricGroup;
import org.apache.flink.metrics.testutils.MetricListener;
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
 * committable the checkpoint would hold; then the producer dies, as a task does. The last tests
 * commit through the committer each of Tally's transactional sinks creates, the dead-letter and the
 * anomaly sink, so that each is seen guarded and counting under its own metrics.
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

  @Test
  void theAnomalySinksCommitterIsGuardedAndCountsUnderItsOwnMetrics() throws Exception {
    KafkaAnomalySink sink =
        new KafkaAnomalySink(
            new KafkaAnomalySinkConfig(
                "alerts",
                AnomalyDelivery.EXACTLY_ONCE,
                "lost-transaction-it-anomalies",
                false,
                deadLetterConfig()));

    Outcome outcome = commitAborted(sink.buildSink()::createCommitter);

    outcome.assertNeverSilent(
        "anomalies",
        "deadletters",
        "Anomaly alerts lost",
        "anomalies.kafka.continue-after-lost-transactions=true");
  }

  @Test
  void theDeadLetterSinksCommitterCountsUnderTheDeadLetterMetrics() throws Exception {
    KafkaDeadLetterSink sink = new KafkaDeadLetterSink(deadLetterConfig());

    Outcome outcome = commitAborted(sink.buildSink()::createCommitter);

    outcome.assertNeverSilent(
        "deadletters",
        "anomalies",
        "Dead letters lost",
        "kafka.dead-letter.continue-after-lost-transactions=true");
  }

  /** A sink's committer factory, as Flink's committer operator calls it. */
  @FunctionalInterface
  private interface CommitterFactory {
    Committer<KafkaCommittable> create(CommitterInitContext context) throws Exception;
  }

  /** What committing a broker-aborted transaction through a sink's own committer did. */
  private record Outcome(MetricListener metrics, Throwable thrown) {
    long lost(String subgroup) {
      return count(subgroup, GuardedKafkaSink.LOST_TRANSACTIONS);
    }

    long counted(String subgroup) {
      return lost(subgroup) + count(subgroup, GuardedKafkaSink.FENCED_COMMITS);
    }

    /**
     * The commit was counted once under {@code subgroup}'s counters and not under {@code other}'s;
     * a loss (not a fence) failed the job without restarts, saying what was lost and how to go on.
     */
    void assertNeverSilent(String subgroup, String other, String lost, String acknowledgement) {
      assertThat(counted(subgroup))
          .as("tally.%s.lost-transactions + tally.%s.fenced-commits", subgroup, subgroup)
          .isOne();
      assertThat(counted(other)).as("the other sink's counters").isZero();
      if (lost(subgroup) == 1) {
        assertThat(thrown)
            .isInstanceOf(SuppressRestartsException.class)
            .hasStackTraceContaining(lost)
            .hasStackTraceContaining(acknowledgement);
      } else {
        assertThat(thrown).isNull();
      }
    }

    private long count(String subgroup, String counter) {
      return metrics
          .getCounter(GuardedKafkaSink.METRIC_GROUP, subgroup, counter)
          .map(Counter::getCount)
          .orElse(0L);
    }
  }

  /**
   * Commits, through the committer a sink creates for subtask 0, a transaction the broker aborted
   * on timeout before its commit.
   */
  private static Outcome commitAborted(CommitterFactory sink) throws Exception {
    KafkaCommittable committable = precommitted("lost-" + UUID.randomUUID(), Duration.ofSeconds(1));
    awaitAbortedByTheBroker(committable.getTransactionalId());
    MetricListener metrics = new MetricListener();
    Recorded request = new Recorded(committable);
    Committer<KafkaCommittable> committer = sink.create(initContext(metrics));
    Throwable thrown;
    try {
      thrown = catchThrowable(() -> committer.commit(List.of(request)));
    } finally {
      committer.close();
    }
    assertThat(request.knownFailure).as("the connector's own verdict").isNotNull();
    return new Outcome(metrics, thrown);
  }

  private static DeadLetterConfig deadLetterConfig() {
    return DeadLetterConfig.builder()
        .bootstrapServers(broker.bootstrapServers())
        .topic(TOPIC)
        .transactionalIdPrefix("lost-transaction-it-dlq")
        .transactionTimeout(Duration.ofMinutes(1))
        .build();
  }

  /**
   * The context of subtask 0's committer, first attempt, whose metric group is a {@link
   * MetricListener}'s: the committer only names its counters through it.
   */
  private static CommitterInitContext initContext(MetricListener metrics) {
    MetricGroup root = metrics.getMetricGroup();
    SinkCommitterMetricGroup group =
        (SinkCommitterMetricGroup)
            Proxy.newProxyInstance(
                LostTransactionIT.class.getClassLoader(),
                new Class<?>[] {SinkCommitterMetricGroup.class},
                (proxy, method, args) -> {
                  if (method.getDeclaringClass() == MetricGroup.class) {
                    return method.invoke(root, args);
                  }
                  throw new UnsupportedOperationException(method.toString());
                });
    TaskInfo task = new TaskInfoImpl("committer", 1, 0, 1, 0);
    JobInfo job = new JobInfoImpl(new JobID(), "lost-transaction-it");
    return new CommitterInitContext() {
      @Override
      public SinkCommitterMetricGroup metricGroup() {
        return group;
      }

      @Override
      public OptionalLong getRestoredCheckpointId() {
        return OptionalLong.empty();
      }

      @Override
      public JobInfo getJobInfo() {
        return job;
      }

      @Override
      public TaskInfo getTaskInfo() {
        return task;
      }
    };
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
        new LostTransactionGuard(
            committer(),
            counters.lost,
            counters.fenced,
            TransactionalOutput.DEAD_LETTERS,
            continueAfterLoss);
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
