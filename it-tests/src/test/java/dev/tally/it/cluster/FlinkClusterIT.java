package dev.tally.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.Await;
import dev.tally.it.oracle.DeadLetterReader;
import dev.tally.it.oracle.Input;
import dev.tally.it.oracle.Rejection;
import dev.tally.it.oracle.SpendingDataset;
import dev.tally.it.oracle.SpendingKey;
import dev.tally.it.oracle.SpendingTableReader;
import dev.tally.it.oracle.TopicWriter;
import dev.tally.it.oracle.Totals;
import dev.tally.it.support.SeedSqlInput;
import dev.tally.it.support.SpendingRows;
import dev.tally.it.support.StackFixture;
import dev.tally.stack.FlinkCluster;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyJobLauncher;
import dev.tally.stack.TallyYaml;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tally's job jar on a real multi-process Flink standalone cluster (a JobManager and two
 * TaskManagers, each its own JVM), submitted, stopped and cancelled through Flink's own CLI front
 * end, against the real local stack (Kafka, an Iceberg REST catalog, an S3-compatible store). Each
 * scenario checks the Iceberg table against an oracle computed here from the specification's rules,
 * and the dead-letter topic for every rejected record exactly once; the SQL scripts of {@code
 * examples/sql} (the seed's and the same-semantics one), run by {@code TallyMain sql} through the
 * same CLI, are checked against the rows their input must give.
 */
class FlinkClusterIT {

  private static final int USERS = 240;
  private static final int EVENTS = 60_000;

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
    // Under target/, not a @TempDir: the logs of every process stay for diagnosis.
    fixture = StackFixture.start("flink-cluster-it");
    root = fixture.root();
    stack = fixture.stack();
    catalog = fixture.catalog();
    Map<String, String> aws = stack.objectStore().awsClientEnvironment();
    long started = System.nanoTime();
    cluster = FlinkCluster.start(root.resolve("flink"), 2, 2, aws);
    System.out.printf(
        "Flink cluster (1 JobManager, 2 TaskManagers) ready in %d ms at %s%n",
        Duration.ofNanos(System.nanoTime() - started).toMillis(), cluster.restAddress());
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
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aBoundedJobSubmittedWithTheCliWritesExactlyTheOracle() throws Exception {
    Scenario s = new Scenario("submit", dataset(1));
    Map<Rejection, Long> offsets = s.produce(s.data.inputs(), Duration.ZERO);
    String jobId = cluster.submit(jobJar, 2, null, s.job(true));

    await("the bounded job finishes", Duration.ofMinutes(3), () -> isFinal(jobId));
    assertThat(cluster.jobStatus(jobId)).isEqualTo("FINISHED");
    // Bounded: the final watermark closes every window, the flush windows included.
    assertThat(s.table()).isEqualTo(s.data.oracle());
    s.assertDeadLettersExactlyOnce(offsets);
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aKilledTaskManagerIsReplacedAndTheJobRecoversExactlyOnce() throws Exception {
    Scenario s = new Scenario("failover", dataset(2));
    String jobId = cluster.submit(jobJar, 2, null, s.job(false));
    await("all tasks run", Duration.ofMinutes(2), () -> cluster.allTasksRunning(jobId));
    // Every JVM reads the job jar from its own path, as the pods of an image read usrlib/: it
    // does not travel through the blob server, so a TaskManager that never ran the job has no
    // ~180 MB to fetch before its tasks start (docs/deployment.md).
    assertThat(largestBlob())
        .as(
            "the largest file of the blob server and caches, bytes (the job jar: %d)",
            Files.size(jobJar))
        .isLessThan(Files.size(jobJar) / 10);
    // Traffic arrives while the job runs, so the kill hits it mid-stream.
    CompletableFuture<Map<Rejection, Long>> producing =
        CompletableFuture.supplyAsync(() -> s.produce(s.data.inputs(), Duration.ofSeconds(15)));
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
    // RocksDB's JNI library is on the TaskManagers' library path (extracted once, as an image
    // does): no TaskManager, the replacement included, extracted its own copy before its first
    // keyed task could start (docs/deployment.md).
    assertThat(rocksDbLibraryCopies())
        .as("copies of RocksDB's library the TaskManagers extracted into their temporary dirs")
        .isEmpty();

    Map<Rejection, Long> offsets = producing.get(2, TimeUnit.MINUTES);
    Map<SpendingKey, Totals> expected = s.data.closedWindowsOracle();
    awaitTable(s, expected);
    s.assertDeadLettersExactlyOnce(offsets);
    cluster.cancel(jobId);
    await("the job is cancelled", Duration.ofMinutes(1), () -> isFinal(jobId));
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void stopWithSavepointAndResumeWithParallelismThree() throws Exception {
    Scenario s = new Scenario("savepoint", dataset(3));
    List<Input> all = s.data.inputs();
    List<Input> first = all.subList(0, all.size() / 2);
    List<Input> second = all.subList(all.size() / 2, all.size());
    Map<Rejection, Long> offsets = new HashMap<>(s.produce(first, Duration.ZERO));
    String jobId = cluster.submit(jobJar, 2, null, s.job(false));
    await(
        "a first completed checkpoint",
        Duration.ofMinutes(2),
        () -> cluster.completedCheckpoints(jobId) >= 1);

    String savepoint = cluster.stopWithSavepoint(jobId, root.resolve("savepoints"));
    assertThat(cluster.jobStatus(jobId)).isEqualTo("FINISHED");
    offsets.putAll(s.produce(second, Duration.ZERO));
    String resumed = cluster.submit(jobJar, 3, savepoint, s.job(false));
    await("all tasks run", Duration.ofMinutes(2), () -> cluster.allTasksRunning(resumed));
    assertThat(cluster.taskManagersOf(resumed)).hasSize(2);
    assertThat(cluster.restoredCheckpoints(resumed)).as("started from the savepoint").isOne();

    awaitTable(s, s.data.closedWindowsOracle());
    s.assertDeadLettersExactlyOnce(offsets);
    cluster.cancel(resumed);
    await("the job is cancelled", Duration.ofMinutes(1), () -> isFinal(resumed));
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void bothSqlScriptsSubmittedWithTheCliWriteTheRowsTheirInputMustGive() throws Exception {
    stack.kafka().createTopic(SeedSqlInput.TOPIC, 4, Map.of("retention.ms", "-1"));
    Map<SpendingRows.Key, SpendingRows.Totals> oracle =
        SeedSqlInput.produce(stack.kafka().bootstrapServers(), 4);
    // The seed's script and the same-semantics one, each its own job on the topic they both read,
    // running side by side (two slots each of the four).
    String seed = submitSql("seed-pipeline.sql");
    String same = submitSql("same-semantics-pipeline.sql");

    await(
        "both bounded SQL jobs finish",
        Duration.ofMinutes(3),
        () -> isFinal(seed) && isFinal(same));
    assertThat(cluster.jobStatus(seed)).isEqualTo("FINISHED");
    assertThat(cluster.jobStatus(same)).isEqualTo("FINISHED");
    assertThat(SeedSqlInput.readSeedTable(catalog, SeedSqlInput.TABLE)).isEqualTo(oracle);
    // One currency, no duplicates: the same rows, read under their own currency column.
    assertThat(SeedSqlInput.readSameSemanticsTable(catalog)).isEqualTo(oracle);
  }

  /**
   * {@code flink run <job jar> sql --file examples/sql/<script>}, bounded, with the environment the
   * script reads; the job's state, checkpoint and restart settings from a {@code tally.yaml} of its
   * own.
   */
  private static String submitSql(String script) {
    String name = script.replace(".sql", "");
    Path dir = root.resolve("sql-" + name);
    Path config =
        TallyYaml.builder(stack.tallyServices())
            .topic(SeedSqlInput.TOPIC)
            .groupId("tally-" + name)
            .transactionalIdPrefix("tally-" + name + "-dlq")
            .table("spending_unused")
            .checkpointDirectory(dir.resolve("checkpoints"))
            .checkpointInterval(Duration.ofSeconds(1))
            .jobName("tally-" + name)
            .writeTo(dir.resolve("tally.yaml"));
    TallyJobLauncher sql =
        TallyJobLauncher.of(config)
            .leadingArguments(
                List.of(
                    "sql",
                    "--file",
                    Path.of("..", "examples", "sql", script)
                        .toAbsolutePath()
                        .normalize()
                        .toString()));
    return cluster.submit(jobJar, 2, null, sql, stack.boundedSqlScriptEnvironment());
  }

  private static long largestBlob() throws IOException {
    try (Stream<Path> files = Files.walk(root.resolve("flink").resolve("blobs"))) {
      return files.mapToLong(file -> file.toFile().length()).max().orElse(0);
    }
  }

  private static List<Path> rocksDbLibraryCopies() throws IOException {
    try (Stream<Path> files = Files.walk(root.resolve("flink").resolve("tmp"))) {
      return files
          .filter(file -> file.getFileName().toString().startsWith("librocksdbjni"))
          .toList();
    }
  }

  private static boolean isFinal(String jobId) {
    String status = cluster.jobStatus(jobId);
    return status.equals("FINISHED") || status.equals("FAILED") || status.equals("CANCELED");
  }

  private static void awaitTable(Scenario s, Map<SpendingKey, Totals> expected) {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    Map<SpendingKey, Totals> table = Map.of();
    while (System.nanoTime() < deadline) {
      SpendingTableReader.Contents contents = s.tableIfExists();
      assertThat(contents.duplicateKeys()).as("primary keys seen twice").isEmpty();
      table = contents.rows();
      if (table.equals(expected)) {
        return;
      }
      sleep(Duration.ofSeconds(1));
    }
    assertThat(table).as("the Iceberg table within 2 minutes").isEqualTo(expected);
  }

  private static void await(String what, Duration timeout, BooleanSupplier condition) {
    Await.until(what, timeout, condition);
  }

  private static void sleep(Duration duration) {
    Await.sleep(duration);
  }

  /** One scenario's topics, table and configuration on the shared stack and cluster. */
  private static final class Scenario {
    final String name;
    final SpendingDataset data;
    final String topic;
    final String dlq;

    Scenario(String name, SpendingDataset data) {
      this.name = name;
      this.data = data;
      this.topic = "tx-" + name;
      this.dlq = topic + ".dlq";
      stack.kafka().createTopic(topic, SpendingDataset.PARTITIONS, SpendingDataset.TOPIC_CONFIG);
    }

    TallyJobLauncher job(boolean bounded) {
      Path dir = root.resolve(name);
      Path config =
          TallyYaml.builder(stack.tallyServices())
              .topic(topic)
              .groupId("tally-" + name)
              .deadLetterTopic(dlq)
              .transactionalIdPrefix("tally-" + name + "-dlq")
              .bounded(bounded)
              .table("spending_" + name)
              .checkpointDirectory(dir.resolve("checkpoints"))
              .checkpointInterval(Duration.ofSeconds(1))
              .jobName("tally-" + name)
              .writeTo(dir.resolve("tally.yaml"));
      return TallyJobLauncher.of(config);
    }

    /**
     * Produces the inputs in order, spread evenly over {@code pace}; returns the (partition,
     * offset) of every record that must be rejected.
     */
    Map<Rejection, Long> produce(List<Input> inputs, Duration pace) {
      return TopicWriter.produce(stack.kafka().bootstrapServers(), topic, inputs, pace);
    }

    /** The dead-letter topic, read_committed, holds each rejected record once and nothing else. */
    void assertDeadLettersExactlyOnce(Map<Rejection, Long> expected) {
      Map<Rejection, Long> seen =
          DeadLetterReader.read(
              stack.kafka().bootstrapServers(),
              dlq,
              topic,
              expected.size(),
              Duration.ofSeconds(60),
              Duration.ofSeconds(3));
      assertThat(seen).as("dead letters (partition, offset, reason) -> copies").isEqualTo(expected);
    }

    Map<SpendingKey, Totals> table() {
      SpendingTableReader.Contents contents = tableIfExists();
      assertThat(contents.duplicateKeys()).as("primary keys seen twice").isEmpty();
      return contents.rows();
    }

    SpendingTableReader.Contents tableIfExists() {
      return SpendingTableReader.read(catalog, TableIdentifier.of("analytics", "spending_" + name));
    }
  }

  /** A dataset for one scenario, with real volume and every verdict data alone decides. */
  private static SpendingDataset dataset(long seed) {
    SpendingDataset d =
        SpendingDataset.generate(
            seed, new SpendingDataset.Shape(EVENTS, USERS, Duration.ofHours(4), true));
    // Guard against a vacuous comparison.
    assertThat(d.oracle()).hasSizeGreaterThan(2_000);
    assertThat(d.inputs()).hasSizeGreaterThan(EVENTS);
    assertThat(d.rejectedByReason())
        .containsKeys("MALFORMED", "MISSING_FIELD", "INVALID_FIELD", "CONFLICTING_DUPLICATE");
    return d;
  }
}
