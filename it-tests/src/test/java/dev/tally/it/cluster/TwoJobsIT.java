package dev.tally.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.it.Await;
import dev.tally.it.oracle.DeadLetterReader;
import dev.tally.it.oracle.Rejection;
import dev.tally.it.oracle.SpendingDataset;
import dev.tally.it.oracle.SpendingKey;
import dev.tally.it.oracle.SpendingTableReader;
import dev.tally.it.oracle.TopicWriter;
import dev.tally.it.oracle.Totals;
import dev.tally.it.support.StackFixture;
import dev.tally.stack.FlinkCluster;
import dev.tally.stack.LocalStack;
import dev.tally.stack.StackException;
import dev.tally.stack.TallyJobLauncher;
import dev.tally.stack.TallyYaml;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two Tally jobs on one real Flink cluster and one Kafka cluster (docs/behaviour.md "Several jobs
 * on one cluster"): jobs of different names that leave the consumer group and the transactional-id
 * prefix to their defaults do not interfere, and a job of another name is refused on a table that a
 * job writes.
 */
class TwoJobsIT {
  private static Path root;
  private static StackFixture fixture;
  private static LocalStack stack;
  private static FlinkCluster cluster;
  private static RESTCatalog catalog;
  private static Path jobJar;

  @BeforeAll
  static void startStackAndCluster() throws IOException {
    jobJar = Path.of(System.getProperty("tally.job.jar"));
    assertThat(jobJar).as("built by runtime-flink's package phase").isRegularFile();
    fixture = StackFixture.start("two-jobs-it");
    root = fixture.root();
    stack = fixture.stack();
    catalog = fixture.catalog();
    // Two TaskManagers of two slots: room for two jobs at parallelism 2.
    cluster =
        FlinkCluster.start(root.resolve("flink"), 2, 2, stack.objectStore().awsClientEnvironment());
  }

  @AfterAll
  static void stopAll() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void twoJobsOfDifferentNamesWithDefaultIdsRunTogetherAndBothWriteExactlyTheOracle()
      throws Exception {
    Job first = new Job("payments-eu", "spending_eu", dataset(71));
    Job second = new Job("payments-us", "spending_us", dataset(72));
    // Streaming, and the traffic only once both run: the two jobs' transactions overlap in time.
    String firstId = cluster.submit(jobJar, 2, null, first.launcher(false));
    String secondId = cluster.submit(jobJar, 2, null, second.launcher(false));
    Await.until(
        "both jobs run",
        Duration.ofMinutes(3),
        () -> cluster.allTasksRunning(firstId) && cluster.allTasksRunning(secondId));
    CompletableFuture<Map<Rejection, Long>> firstProduced =
        CompletableFuture.supplyAsync(() -> first.produce(Duration.ofSeconds(20)));
    CompletableFuture<Map<Rejection, Long>> secondProduced =
        CompletableFuture.supplyAsync(() -> second.produce(Duration.ofSeconds(20)));
    Map<Rejection, Long> firstRejected = firstProduced.get(2, TimeUnit.MINUTES);
    Map<Rejection, Long> secondRejected = secondProduced.get(2, TimeUnit.MINUTES);

    first.awaitTable(first.data.closedWindowsOracle());
    second.awaitTable(second.data.closedWindowsOracle());
    assertThat(first.deadLetters(firstRejected.size()))
        .as("dead letters of %s (partition, offset, reason) -> copies", first.name)
        .isEqualTo(firstRejected);
    assertThat(second.deadLetters(secondRejected.size()))
        .as("dead letters of %s (partition, offset, reason) -> copies", second.name)
        .isEqualTo(secondRejected);
    // Not asserted (a loaded machine can lose a TaskManager's heartbeat), but telling when not 0.
    System.out.printf(
        "TwoJobsIT: checkpoints restored by %s: %d, by %s: %d%n",
        first.name,
        cluster.restoredCheckpoints(firstId),
        second.name,
        cluster.restoredCheckpoints(secondId));
    assertThat(cluster.jobStatus(firstId)).isEqualTo("RUNNING");
    assertThat(cluster.jobStatus(secondId)).isEqualTo("RUNNING");
    cluster.cancel(firstId);
    cluster.cancel(secondId);
    Await.until(
        "both jobs are cancelled",
        Duration.ofMinutes(1),
        () -> isFinal(firstId) && isFinal(secondId));
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aJobOfAnotherNameIsRefusedAtStartOnATableAJobWritesNamingTheOwner() {
    Job owner = new Job("ledger-owner", "spending_owned", null);
    Job intruder = new Job("ledger-intruder", "spending_owned", null);
    String ownerId = cluster.submit(jobJar, 1, null, owner.launcher(false));
    Await.until("the owner runs", Duration.ofMinutes(2), () -> cluster.allTasksRunning(ownerId));

    assertThatThrownBy(() -> cluster.submit(jobJar, 1, null, intruder.launcher(false)))
        .isInstanceOf(StackException.class)
        .hasMessageContaining(
            "Iceberg table analytics.spending_owned is written by the job \"ledger-owner\"")
        .hasMessageContaining("not by this job \"ledger-intruder\"");
    assertThat(cluster.jobStatus(ownerId)).isEqualTo("RUNNING");
    cluster.cancel(ownerId);
    Await.until("the owner is cancelled", Duration.ofMinutes(1), () -> isFinal(ownerId));
  }

  private static boolean isFinal(String jobId) {
    String status = cluster.jobStatus(jobId);
    return status.equals("FINISHED") || status.equals("FAILED") || status.equals("CANCELED");
  }

  private static SpendingDataset dataset(long seed) {
    SpendingDataset d =
        SpendingDataset.generate(
            seed, new SpendingDataset.Shape(20_000, 120, Duration.ofHours(3), true));
    assertThat(d.oracle()).hasSizeGreaterThan(500);
    assertThat(d.rejectedByReason()).containsKeys("MALFORMED", "CONFLICTING_DUPLICATE");
    return d;
  }

  /** One job: its name, its own topics and table; group and prefix left to Tally's defaults. */
  private static final class Job {
    final String name;
    final String table;
    final SpendingDataset data;
    final String topic;
    final String dlq;

    Job(String name, String table, SpendingDataset data) {
      this.name = name;
      this.table = table;
      this.data = data;
      this.topic = "tx-" + name;
      this.dlq = topic + ".dlq";
      // The dataset holds oversized records; the dead-letter topic is the job's to create, sized
      // for them.
      stack.kafka().createTopic(topic, SpendingDataset.PARTITIONS, SpendingDataset.TOPIC_CONFIG);
    }

    TallyJobLauncher launcher(boolean bounded) {
      Path dir = root.resolve(name);
      Path config =
          TallyYaml.builder(stack.tallyServices())
              .topic(topic)
              .deadLetterTopic(dlq)
              .idsFromJobName()
              .bounded(bounded)
              .table(table)
              .checkpointDirectory(dir.resolve("checkpoints"))
              .checkpointInterval(Duration.ofSeconds(1))
              .jobName(name)
              .writeTo(dir.resolve("tally.yaml"));
      return TallyJobLauncher.of(config);
    }

    Map<Rejection, Long> produce(Duration pace) {
      return TopicWriter.produce(stack.kafka().bootstrapServers(), topic, data.inputs(), pace);
    }

    void awaitTable(Map<SpendingKey, Totals> expected) {
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      Map<SpendingKey, Totals> rows = Map.of();
      while (System.nanoTime() < deadline) {
        rows = table();
        if (rows.equals(expected)) {
          return;
        }
        Await.sleep(Duration.ofSeconds(1));
      }
      assertThat(rows).as("the table of %s within 2 minutes", name).isEqualTo(expected);
    }

    Map<Rejection, Long> deadLetters(long expected) {
      return DeadLetterReader.read(
          stack.kafka().bootstrapServers(),
          dlq,
          topic,
          expected,
          Duration.ofSeconds(60),
          Duration.ofSeconds(3));
    }

    Map<SpendingKey, Totals> table() {
      SpendingTableReader.Contents contents =
          SpendingTableReader.read(catalog, TableIdentifier.of("analytics", table));
      assertThat(contents.duplicateKeys()).as("primary keys seen twice").isEmpty();
      return contents.rows();
    }
  }
}
