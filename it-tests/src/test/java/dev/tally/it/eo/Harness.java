package dev.tally.it.eo;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Stage;
import com.google.inject.util.Modules;
import dev.tally.adapters.kafka.KafkaSourceModule;
import dev.tally.it.Await;
import dev.tally.it.anomaly.AnomalyReport;
import dev.tally.it.anomaly.AnomalyTableReader;
import dev.tally.it.anomaly.AnomalyTopicReader;
import dev.tally.it.anomaly.TransactionKey;
import dev.tally.it.oracle.DeadLetterReader;
import dev.tally.it.oracle.ExactlyOnceVerdict;
import dev.tally.it.oracle.Input;
import dev.tally.it.oracle.Rejection;
import dev.tally.it.oracle.SpendingDataset;
import dev.tally.it.oracle.SpendingKey;
import dev.tally.it.oracle.SpendingTableReader;
import dev.tally.it.oracle.TopicWriter;
import dev.tally.it.oracle.Totals;
import dev.tally.ports.in.TransactionSource;
import dev.tally.runtime.TallyMain;
import dev.tally.runtime.config.ConfigSource;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.runtime.guice.TallyModules;
import dev.tally.runtime.job.TallyJob;
import dev.tally.stack.TallyYaml;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The exactly-once harness: Tally's job (its Guice modules, topology and adapters, built from a
 * {@code tally.yaml} as {@code TallyMain} builds it) on a MiniCluster in this JVM, against the
 * services of an {@link Infrastructure}, reading one topic produced once from a seeded {@link
 * SpendingDataset}, with anomaly detection on. Each scenario gets its own table, dead-letter topic,
 * anomaly table and topic, consumer group and checkpoint directory, and ends with an {@link
 * ExactlyOnceVerdict}.
 *
 * <p>Why a MiniCluster and not the multi-process {@code FlinkCluster}: faults inside the job (an
 * exception in a task, a failing snapshot) are injected by a Guice override that decorates a port
 * with a test operator, which needs the job graph built in the test JVM; the real job jar on a real
 * cluster, with a TaskManager killed and a savepoint rescale, is {@code FlinkClusterIT}'s part.
 */
final class Harness implements AutoCloseable {

  /** Slots of the MiniCluster: enough for parallelism 3. */
  static final int SLOTS = 4;

  static final Duration JOB_TIMEOUT = Duration.ofMinutes(4);

  /** The reasons the aggregator, not the decoder, decides: such records pass the source. */
  private static final Set<String> AGGREGATOR_REJECTS =
      Set.of("LATE", "CONFLICTING_DUPLICATE", "AMOUNT_OVERFLOW");

  /**
   * {@code -Dtally.eo.bounded=true}: jobs read bounded and end by themselves, as a backfill does,
   * instead of streaming and being drained.
   */
  static final boolean BOUNDED = Boolean.getBoolean("tally.eo.bounded");

  /**
   * The watermark every run ends with, and so the anomalies it must have decided: each ends by a
   * drain ({@link Run#finishByDrain}) or at the end of its bounded input, and both move the
   * watermark to the end of time (docs/behaviour.md "Anomalies", "When").
   */
  static final long FINAL_WATERMARK = Long.MAX_VALUE;

  /** Partitions of each run's anomaly topic: more than one, so the reader must read them all. */
  private static final int ANOMALY_PARTITIONS = 2;

  private final Path root;
  private final Infrastructure infrastructure;
  private final MiniCluster flink;
  private final SpendingDataset data;
  private final String topic;
  private final Map<Rejection, Long> expectedLetters;
  private final Map<TransactionKey, AnomalyReport> expectedAnomalies;
  private final RESTCatalog catalog;
  private final Admin admin;

  private Harness(
      Path root,
      Infrastructure infrastructure,
      MiniCluster flink,
      SpendingDataset data,
      String topic,
      Map<Rejection, Long> expectedLetters,
      RESTCatalog catalog) {
    this.root = root;
    this.infrastructure = infrastructure;
    this.flink = flink;
    this.data = data;
    this.topic = topic;
    this.expectedLetters = expectedLetters;
    this.expectedAnomalies = data.anomalies(FINAL_WATERMARK);
    this.catalog = catalog;
    Properties props = new Properties();
    props.put(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infrastructure.services().bootstrapServers());
    this.admin = Admin.create(props);
  }

  /**
   * Starts the infrastructure and writes the dataset of {@code seed} to a new topic, once for all
   * scenarios of a test class.
   */
  static Harness start(String name, MiniCluster flink, long seed, SpendingDataset.Shape shape) {
    Path root;
    try {
      // Under target/, not a @TempDir: every service's log stays for diagnosis.
      root =
          Files.createDirectories(Path.of("target", name))
              .resolve(Long.toString(System.currentTimeMillis()))
              .toAbsolutePath();
      Files.createDirectories(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Infrastructure infrastructure = Infrastructure.start(root);
    try {
      // The job's and the reader's S3FileIO take keys from the AWS SDK's default chain.
      System.setProperty("aws.accessKeyId", infrastructure.s3AccessKey());
      System.setProperty("aws.secretAccessKey", infrastructure.s3SecretKey());
      long started = System.nanoTime();
      SpendingDataset data = SpendingDataset.generate(seed, shape);
      String topic = "tx-eo-" + Long.toHexString(seed);
      infrastructure.createTopic(topic, SpendingDataset.PARTITIONS);
      Map<Rejection, Long> letters =
          TopicWriter.produce(
              infrastructure.services().bootstrapServers(), topic, data.inputs(), Duration.ZERO);
      System.out.printf("Produced %s to %s in %d ms%n", data, topic, millisSince(started));
      RESTCatalog catalog = new RESTCatalog();
      catalog.initialize("eo-reader", infrastructure.catalogClientProperties());
      return new Harness(root, infrastructure, flink, data, topic, letters, catalog);
    } catch (RuntimeException e) {
      infrastructure.close();
      throw e;
    }
  }

  SpendingDataset data() {
    return data;
  }

  Infrastructure infrastructure() {
    return infrastructure;
  }

  /**
   * How many records of the dataset pass decoding in each source subtask at {@code parallelism}
   * (what the fault injector counts): all but the decoder's rejections, by the connector's
   * documented assignment of partitions to readers (round robin from an index taken from the
   * topic's name).
   */
  long[] recordsPassingDecodingPerSubtask(int parallelism) {
    int first = ((topic.hashCode() * 31) & 0x7FFFFFFF) % parallelism;
    long[] counts = new long[parallelism];
    for (Input input : data.inputs()) {
      if (input.rejected() == null || AGGREGATOR_REJECTS.contains(input.rejected())) {
        counts[(first + input.partition()) % parallelism]++;
      }
    }
    return counts;
  }

  /** A scenario's own table, dead-letter topic, group and directories, over the dataset. */
  Run run(String name) {
    return new Run(
        name, topic, SpendingDataset.PARTITIONS, data.oracle(), expectedLetters, expectedAnomalies);
  }

  /**
   * A run that reads a topic of its own, empty at first, with {@code partitions} partitions: the
   * scenario produces to it and states what the table, the dead letters and the anomaly outputs
   * must hold ({@link Run#expect}).
   */
  Run runOnItsOwnTopic(String name, int partitions) {
    String own = topic + "." + name;
    infrastructure.createTopic(own, partitions);
    return new Run(name, own, partitions, Map.of(), Map.of(), Map.of());
  }

  /** The anomalies every run over the dataset must write, once each to table and topic. */
  Map<TransactionKey, AnomalyReport> expectedAnomalies() {
    return expectedAnomalies;
  }

  @Override
  public void close() {
    admin.close();
    try {
      catalog.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      infrastructure.close();
    }
  }

  /** One scenario run: its jobs share its table, dead letters, group and checkpoints. */
  final class Run {
    final String name;
    final Path dir;
    final String table;
    final String dlq;
    final String anomalyTable;
    final String anomalyTopic;
    final String group;
    final Path config;
    final String source;
    final long started = System.nanoTime();
    private final int partitions;
    private Map<SpendingKey, Totals> expectedRows;
    private Map<Rejection, Long> expectedDeadLetters;
    private Map<TransactionKey, AnomalyReport> expectedAnomalies;
    private final List<JobID> jobs = new ArrayList<>();
    private final List<JobID> boundedJobs = new ArrayList<>();

    Harness harness() {
      return Harness.this;
    }

    private Run(
        String name,
        String source,
        int partitions,
        Map<SpendingKey, Totals> expectedRows,
        Map<Rejection, Long> expectedDeadLetters,
        Map<TransactionKey, AnomalyReport> expectedAnomalies) {
      this.name = name;
      this.source = source;
      this.partitions = partitions;
      this.expectedRows = expectedRows;
      this.expectedDeadLetters = expectedDeadLetters;
      this.expectedAnomalies = expectedAnomalies;
      this.dir = root.resolve(name);
      this.table = "spending_" + name.replaceAll("[^a-z0-9]", "_");
      this.anomalyTable = "anomalies_" + name.replaceAll("[^a-z0-9]", "_");
      this.dlq = topic + "." + name + ".dlq";
      this.anomalyTopic = topic + "." + name + ".anomalies";
      // Tally would create a missing anomaly topic with the broker's partitions (1 here); with 2,
      // the topic reader must read every partition.
      infrastructure.createTopic(anomalyTopic, ANOMALY_PARTITIONS);
      this.group = "tally-" + name;
      // The dead-letter topic is the job's to create, sized for the source topic's records.
      this.config =
          TallyYaml.builder(infrastructure.services())
              .topic(source)
              .groupId(group)
              .deadLetterTopic(dlq)
              .transactionalIdPrefix("tally-" + name + "-dlq")
              // Streaming, as in production, and finishByDrain ends each run; or, with
              // -Dtally.eo.bounded=true, bounded as a backfill runs, resumed jobs included.
              .bounded(BOUNDED)
              .table(table)
              .checkpointDirectory(dir.resolve("checkpoints"))
              .checkpointInterval(Duration.ofSeconds(1))
              .jobName("tally-eo-" + name)
              .set("restart.initial-backoff", "500ms")
              .set("restart.max-backoff", "5s")
              .set("anomalies.enabled", "true")
              .set("anomalies.table", "analytics." + anomalyTable)
              .set("anomalies.kafka.topic", anomalyTopic)
              .writeTo(dir.resolve("tally.yaml"));
    }

    /**
     * Submits Tally's job as {@code TallyMain} builds it from this run's {@code tally.yaml}.
     *
     * @param restoreFrom a savepoint or retained checkpoint to start from, or null
     * @param fault a fault to inject inside the job, or null
     * @param overrides {@code key=value} overrides, as {@code --set} takes them
     */
    JobID submit(int parallelism, String restoreFrom, Fault fault, String... overrides)
        throws Exception {
      List<String> settings = List.of(overrides);
      TallyConfig read = TallyConfig.read(ConfigSource.load(config, settings, System::getenv));
      // As TallyMain's start does: the dead-letter path sized for the source topic, the sink topics
      // checked or created.
      TallyConfig tally = TallyMain.prepareKafkaSinks(read);
      Injector injector;
      if (fault == null) {
        injector = TallyModules.injector(tally);
      } else {
        // The production source, from its own module, decorated; everything else as in production.
        TransactionSource real =
            Guice.createInjector(new KafkaSourceModule(tally.kafka().source()))
                .getInstance(TransactionSource.class);
        TransactionSource faulty = new FaultInjectingSource(real, fault);
        injector =
            Guice.createInjector(
                Stage.PRODUCTION,
                Modules.override(TallyModules.of(tally))
                    .with(
                        new AbstractModule() {
                          @Override
                          protected void configure() {
                            bind(TransactionSource.class).toInstance(faulty);
                          }
                        }));
      }
      TallyJob job = injector.getInstance(TallyJob.class);
      Configuration configuration = job.configuration();
      if (restoreFrom != null) {
        configuration.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom);
      }
      StreamExecutionEnvironment env =
          StreamExecutionEnvironment.getExecutionEnvironment(configuration);
      env.setParallelism(parallelism);
      job.attachTo(env);
      JobClient client = env.executeAsync(tally.job().name());
      jobs.add(client.getJobID());
      if (tally.kafka().source().bounded()) {
        boundedJobs.add(client.getJobID());
      }
      System.out.printf(
          "[%s] job %s submitted at parallelism %d%s%s%n",
          name,
          client.getJobID(),
          parallelism,
          restoreFrom == null ? "" : ", restoring " + restoreFrom,
          fault == null ? "" : ", with " + fault.kind());
      return client.getJobID();
    }

    JobStatus status(JobID job) {
      return get(flink.getJobStatus(job));
    }

    boolean isTerminal(JobID job) {
      return status(job).isGloballyTerminalState();
    }

    /** Waits until the job ends, however it ends, and returns how it ended. */
    JobStatus awaitEnded(JobID job) {
      await("job " + job + " of " + name + " ends", JOB_TIMEOUT, () -> isTerminal(job));
      return status(job);
    }

    /** Why the job failed, or null when it did not. */
    Throwable failureCause(JobID job) {
      return get(flink.requestJobResult(job))
          .getSerializedThrowable()
          .map(t -> t.deserializeError(getClass().getClassLoader()))
          .orElse(null);
    }

    /** Waits until the job ends; it must end FINISHED. */
    private void awaitFinished(JobID job) {
      await("job " + job + " of " + name + " finishes", JOB_TIMEOUT, () -> isTerminal(job));
      JobStatus status = status(job);
      System.out.printf("[%s] job %s %s after %d ms%n", name, job, status, millisSince(started));
      if (status != JobStatus.FINISHED) {
        // The cause, so a failed run can be diagnosed from the report alone.
        Throwable cause =
            get(flink.requestJobResult(job))
                .getSerializedThrowable()
                .map(t -> t.deserializeError(getClass().getClassLoader()))
                .orElse(null);
        throw new AssertionError(name + ": job " + job + " ended " + status, cause);
      }
    }

    long completedCheckpoints(JobID job) {
      AccessExecutionGraph graph = get(flink.getExecutionGraph(job));
      return graph.getCheckpointStatsSnapshot() == null
          ? 0
          : graph.getCheckpointStatsSnapshot().getCounts().getNumberOfCompletedCheckpoints();
    }

    /** Waits for {@code count} completed checkpoints of the job; false if it ended before. */
    boolean awaitCheckpoints(JobID job, long count) {
      await(
          count + " completed checkpoints of " + name,
          JOB_TIMEOUT,
          () -> isTerminal(job) || completedCheckpoints(job) >= count);
      return !isTerminal(job);
    }

    /** How often the job went through RESTARTING (0 or 1: Flink keeps the last timestamp). */
    boolean restarted(JobID job) {
      return get(flink.getExecutionGraph(job)).getStatusTimestamp(JobStatus.RESTARTING) > 0;
    }

    /** Whether the job went through RESTARTING at or after {@code epochMillis}. */
    boolean restartedSince(JobID job, long epochMillis) {
      return get(flink.getExecutionGraph(job)).getStatusTimestamp(JobStatus.RESTARTING)
          >= epochMillis;
    }

    long restoredCheckpoints(JobID job) {
      AccessExecutionGraph graph = get(flink.getExecutionGraph(job));
      return graph.getCheckpointStatsSnapshot().getCounts().getNumberOfRestoredCheckpoints();
    }

    /** Cancels every job of this run that has not ended, and waits for them to end. */
    void cancelUnfinishedJobs() {
      for (JobID job : jobs) {
        try {
          if (!isTerminal(job)) {
            cancel(job);
          }
        } catch (RuntimeException | AssertionError e) {
          System.out.printf("[%s] could not cancel job %s: %s%n", name, job, e);
        }
      }
    }

    void cancel(JobID job) {
      get(flink.cancelJob(job));
      await("job " + job + " is cancelled", JOB_TIMEOUT, () -> isTerminal(job));
    }

    /** Takes a savepoint of the running job, which goes on, and returns its path. */
    String savepoint(JobID job) {
      return get(
          flink.triggerSavepoint(
              job,
              dir.resolve("savepoints").toUri().toString(),
              false,
              SavepointFormatType.CANONICAL));
    }

    /** Stops the job with a savepoint (no drain: windows stay open) and returns its path. */
    String stopWithSavepoint(JobID job) {
      return stopWithSavepoint(job, false);
    }

    String stopWithSavepoint(JobID job, boolean drain) {
      return get(
          flink.stopWithSavepoint(
              job,
              dir.resolve("savepoints").toUri().toString(),
              drain,
              SavepointFormatType.CANONICAL));
    }

    /**
     * Ends an unbounded job as a bounded one would end: once the job has committed the topic's last
     * offsets (it read everything, and a completed checkpoint covers it), stop with a savepoint and
     * drain, which closes every window with the final watermark and commits the rest. The job's own
     * first checkpoint is awaited too: a job resumed from the state of one that read everything
     * finds the offsets committed already, and a stop issued while its tasks still deploy is
     * refused ("Not all required tasks are currently running").
     *
     * @return the drained savepoint, null for a job that ended by itself
     */
    String finishByDrain(JobID job) {
      if (boundedJobs.contains(job)) {
        // A bounded job ends by itself, with the final watermark and the end of input.
        awaitFinished(job);
        return null;
      }
      await(
          "job " + job + " of " + name + " commits the last offsets",
          JOB_TIMEOUT,
          () -> isTerminal(job) || (completedCheckpoints(job) >= 1 && caughtUp()));
      String savepoint = isTerminal(job) ? null : stopWithSavepoint(job, true);
      awaitFinished(job);
      return savepoint;
    }

    /** Whether this run's consumer group has committed the end offset of every partition. */
    private boolean caughtUp() {
      try {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
          latest.put(new TopicPartition(source, p), OffsetSpec.latest());
        }
        ListOffsetsResult ends = admin.listOffsets(latest);
        for (TopicPartition partition : latest.keySet()) {
          OffsetAndMetadata at = committed.get(partition);
          long end = ends.partitionResult(partition).get(10, TimeUnit.SECONDS).offset();
          if (at == null || at.offset() != end) {
            return false;
          }
        }
        return true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } catch (ExecutionException | TimeoutException e) {
        return false; // e.g. the broker restarting
      }
    }

    /** Waits until the table has committed a row of the window starting at {@code start}. */
    void awaitCommittedWindow(JobID job, java.time.Instant start) {
      await(
          "a committed row of the window at " + start + " in " + name,
          JOB_TIMEOUT,
          () ->
              isTerminal(job)
                  || committedRows().keySet().stream()
                      .anyMatch(k -> k.windowStart().equals(start)));
      if (isTerminal(job)) {
        throw new AssertionError(name + ": job " + job + " ended " + status(job));
      }
    }

    /** Waits until the job's group has committed the last offset of every partition. */
    void awaitCaughtUp(JobID job) {
      await(
          "job " + job + " of " + name + " commits the last offsets",
          JOB_TIMEOUT,
          () -> isTerminal(job) || caughtUp());
    }

    /** The newest retained checkpoint of the job ({@code chk-N} with its {@code _metadata}). */
    String latestRetainedCheckpoint(JobID job) {
      Path jobDir = dir.resolve("checkpoints").resolve(job.toHexString());
      try (Stream<Path> children = Files.list(jobDir)) {
        Optional<Path> latest =
            children
                .filter(p -> p.getFileName().toString().startsWith("chk-"))
                .filter(p -> Files.exists(p.resolve("_metadata")))
                .max(
                    Comparator.comparingLong(
                        p -> Long.parseLong(p.getFileName().toString().substring(4))));
        return latest
            .orElseThrow(() -> new AssertionError("no retained checkpoint in " + jobDir))
            .toUri()
            .toString();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * What the table, the dead letters and the anomaly table and topic must hold, for a run on its
     * own topic.
     */
    void expect(
        Map<SpendingKey, Totals> rows,
        Map<Rejection, Long> deadLetters,
        Map<TransactionKey, AnomalyReport> anomalies) {
      this.expectedRows = Map.copyOf(rows);
      this.expectedDeadLetters = Map.copyOf(deadLetters);
      this.expectedAnomalies = Map.copyOf(anomalies);
    }

    /**
     * Produces {@code inputs} to this run's topic; returns where the ones to be rejected landed.
     */
    Map<Rejection, Long> produce(List<Input> inputs) {
      return TopicWriter.produce(
          infrastructure.services().bootstrapServers(), source, inputs, Duration.ZERO);
    }

    /** The run's spending table, as the catalog has it now. */
    org.apache.iceberg.Table spendingTable() {
      return catalog.loadTable(TableIdentifier.of("analytics", table));
    }

    /** The rows the table holds now (committed snapshots only); none before its first commit. */
    Map<SpendingKey, Totals> committedRows() {
      return SpendingTableReader.read(catalog, TableIdentifier.of("analytics", table)).rows();
    }

    /**
     * Reads the table, the dead letters and the anomaly table and topic and compares them with the
     * oracle; prints the verdict with the run's time.
     */
    ExactlyOnceVerdict verdict() {
      SpendingTableReader.Contents contents =
          SpendingTableReader.read(catalog, TableIdentifier.of("analytics", table));
      long expected = expectedDeadLetters.size();
      Map<Rejection, Long> letters =
          DeadLetterReader.read(
              infrastructure.services().bootstrapServers(),
              dlq,
              source,
              expected,
              Duration.ofSeconds(60),
              Duration.ofSeconds(2));
      List<AnomalyReport> anomalyRows =
          AnomalyTableReader.reports(catalog, TableIdentifier.of("analytics", anomalyTable));
      List<AnomalyReport> alerts =
          AnomalyTopicReader.read(
              infrastructure.services().bootstrapServers(), anomalyTopic, expectedAnomalies.size());
      ExactlyOnceVerdict verdict =
          ExactlyOnceVerdict.compare(
              expectedRows,
              contents,
              expectedDeadLetters,
              letters,
              expectedAnomalies,
              anomalyRows,
              alerts);
      System.out.printf(
          "[%s] %s after %d ms: %d rows, %d dead letters, %d anomaly rows, %d alerts (%d"
              + " anomalies expected); %s%n",
          name,
          verdict.exact() ? "EXACT" : "NOT EXACT",
          millisSince(started),
          contents.rows().size(),
          letters.values().stream().mapToLong(Long::longValue).sum(),
          anomalyRows.size(),
          alerts.size(),
          expectedAnomalies.size(),
          verdict.summary());
      return verdict;
    }
  }

  static void await(String what, Duration timeout, BooleanSupplier condition) {
    Await.until(what, timeout, condition);
  }

  static void sleep(Duration duration) {
    Await.sleep(duration);
  }

  static long millisSince(long nanos) {
    return Duration.ofNanos(System.nanoTime() - nanos).toMillis();
  }

  private static <T> T get(java.util.concurrent.CompletableFuture<T> future) {
    try {
      return future.get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
