package dev.tally.bench;

import dev.tally.stack.FlinkCluster;
import dev.tally.stack.FlinkRestClient;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyJobLauncher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * A SQL leg's script under {@link Recovery}'s kills, run as a user runs it on a cluster: {@code
 * flink run <job jar> sql --file <script> --config tally.yaml} (docs/sql.md), with the environment
 * the script reads (its endpoints, {@code SCAN_STARTUP_MODE=earliest-offset}, unbounded), on the
 * seed's fixed topic, emptied first, so the job reads exactly what the traffic produces.
 *
 * <p>"Processing again": every subtask of the vertex behind the source's shuffle (the first vertex
 * after the source: the window aggregation, or the seed-semantics dedupe in front of it) reads
 * records in a new attempt, as for Tally's aggregator. The script's windows last an hour, so a run
 * of minutes closes at most one: after each kill every row the table holds is checked exact (there
 * is no completeness marker to say which rows must be there); at the end, once the source has read
 * the last record produced, the job is stopped with {@code --drain}, whose final watermark fires
 * every window and whose savepoint commits them, and the table must hold every (user[, currency],
 * hour) the traffic produced, exact: what survived every kill, counted once.
 */
final class SqlRecoveryJob implements Recovery.Job {

  private static final String NAMESPACE = "analytics";
  private static final Duration END_TIMEOUT = Duration.ofMinutes(3);

  /** A Kafka source reader's position metric: the offset of the last record it emitted. */
  private static final Pattern CURRENT_OFFSET =
      Pattern.compile("KafkaSourceReader\\.topic\\..+\\.partition\\.(\\d+)\\.currentOffset$");

  private final SqlLeg leg;
  private final BenchOptions o;
  private final LiveExpectation expected;
  private LocalStack stack;
  private Path dir;

  SqlRecoveryJob(SqlLeg leg, BenchOptions options) {
    this.leg = leg;
    this.o = options;
    this.expected = new LiveExpectation(SqlLeg.WINDOW.toMillis(), leg.byCurrency());
  }

  @Override
  public String leg() {
    return leg.name();
  }

  @Override
  public String topic() {
    return SqlLeg.TOPIC;
  }

  @Override
  public Duration outOfOrderness() {
    return SqlLeg.OUT_OF_ORDERNESS;
  }

  @Override
  public LiveExpectation expected() {
    return expected;
  }

  @Override
  public String submit(LocalStack stack, FlinkCluster cluster, Path dir, List<String> overrides) {
    this.stack = stack;
    this.dir = dir;
    // The script reads its fixed topic from the first offset: an empty one, so that it reads what
    // the traffic produces and nothing an earlier leg left there. The seed's CREATE TABLE has no
    // IF NOT EXISTS, and an earlier leg's rows are not this run's.
    stack.kafka().deleteTopic(SqlLeg.TOPIC);
    stack.kafka().createTopic(SqlLeg.TOPIC, o.partitions, Map.of("retention.ms", "-1"));
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("bench-sql-recovery", stack.catalog().clientProperties());
    try (catalog) {
      catalog.dropTable(TableIdentifier.of(NAMESPACE, leg.table()), true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // State backend, checkpoints and restart strategy from tally.yaml, as for the throughput leg;
    // the Tally table named there is unused: the script names its own.
    Path config =
        JobRuns.writeConfig(
            dir, stack, SqlLeg.TOPIC, "sql_unused", o.parallelism, o.checkpointInterval);
    TallyJobLauncher sql =
        TallyJobLauncher.of(config)
            .leadingArguments(List.of("sql", "--file", leg.script().toString()))
            .overrides(overrides);
    return cluster.submit(o.jobJar(), o.parallelism, null, sql, stack.sqlScriptEnvironment());
  }

  /**
   * The first vertex after the source: the REST API lists a job's vertices in topological order,
   * and the script has one source, so the second vertex reads only its records, over the network.
   */
  @Override
  public String watched(FlinkRestClient rest, String jobId) {
    return rest.job(jobId).vertices().get(1).id();
  }

  @Override
  public String watchedName() {
    return "first vertex behind the source's shuffle";
  }

  @Override
  public String verdict(RESTCatalog catalog) {
    return expected.verdictOfRows(IcebergStats.rows(catalog, NAMESPACE, leg.table()));
  }

  @Override
  public String finish(FlinkCluster cluster, String jobId, RESTCatalog catalog, long stoppedAt)
      throws Exception {
    FlinkRestClient rest = cluster.rest();
    awaitEverythingRead(rest, jobId);
    Bench.say("The source has read every record; stopping the job with --drain…");
    rest.stopWithDrain(jobId, dir.resolve("savepoints"));
    long deadline = System.currentTimeMillis() + END_TIMEOUT.toMillis();
    while (!cluster.jobStatus(jobId).equals("FINISHED")) {
      if (System.currentTimeMillis() > deadline
          || List.of("FAILED", "CANCELED").contains(cluster.jobStatus(jobId))) {
        return "WRONG: the drained job is " + cluster.jobStatus(jobId) + ", not FINISHED";
      }
      Thread.sleep(500);
    }
    long last = expected.lastWindowEnd();
    String verdict =
        expected.verdict(IcebergStats.rows(catalog, NAMESPACE, leg.table()), last, last);
    return verdict + " (after stop --drain)";
  }

  /**
   * Waits until, for every partition of the topic, a reader of the source has emitted the last
   * record (its {@code currentOffset} is the end offset less one): then a stop emits nothing
   * produced after the records it read, and loses none.
   */
  private void awaitEverythingRead(FlinkRestClient rest, String jobId) throws Exception {
    Map<Integer, Long> end = endOffsets();
    String source = rest.job(jobId).vertices().get(0).id();
    long deadline = System.currentTimeMillis() + END_TIMEOUT.toMillis();
    Map<Integer, Long> read = Map.of();
    while (System.currentTimeMillis() < deadline) {
      read = positions(rest.vertexMetrics(jobId, source, ".currentOffset"));
      Map<Integer, Long> seen = read;
      if (end.entrySet().stream()
          .allMatch(
              e -> e.getValue() == 0 || seen.getOrDefault(e.getKey(), -1L) >= e.getValue() - 1)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(
        "the source did not read to the end offsets "
            + end
            + " within "
            + END_TIMEOUT
            + ": "
            + read);
  }

  /** The highest emitted offset per partition, over the reader subtasks' metrics. */
  private static Map<Integer, Long> positions(Map<String, String> metrics) {
    Map<Integer, Long> positions = new TreeMap<>();
    metrics.forEach(
        (id, value) -> {
          Matcher m = CURRENT_OFFSET.matcher(id);
          if (m.find()) {
            positions.merge(Integer.parseInt(m.group(1)), Long.parseLong(value), Math::max);
          }
        });
    return positions;
  }

  private Map<Integer, Long> endOffsets() throws InterruptedException, ExecutionException {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers()))) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < o.partitions; p++) {
        latest.put(new TopicPartition(SqlLeg.TOPIC, p), OffsetSpec.latest());
      }
      Map<Integer, Long> end = new TreeMap<>();
      admin
          .listOffsets(latest)
          .all()
          .get()
          .forEach((partition, info) -> end.put(partition.partition(), info.offset()));
      return end;
    }
  }
}
