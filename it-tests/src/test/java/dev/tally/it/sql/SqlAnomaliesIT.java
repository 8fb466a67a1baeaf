package dev.tally.it.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.anomaly.Anomaly;
import dev.tally.it.anomaly.AnomalyDataset;
import dev.tally.it.anomaly.AnomalyTableReader;
import dev.tally.it.anomaly.OracleDifferences;
import dev.tally.it.anomaly.SqlAnomalyOracle;
import dev.tally.it.anomaly.TransactionKey;
import dev.tally.it.oracle.TopicWriter;
import dev.tally.it.support.StackFixture;
import dev.tally.runtime.TallyMain;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyYaml;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code examples/sql/anomalies.sql}, run by Tally's SQL runner on the real local stack (a Kafka
 * broker, an Iceberg REST catalog, an S3-compatible store) over a generated {@link AnomalyDataset}:
 * its table holds exactly the rows of the SQL form's own semantics ({@link SqlAnomalyOracle}), and
 * where those differ from the contract's rule, each difference has a documented cause.
 */
class SqlAnomaliesIT {

  private static final Path SCRIPT = Path.of("..", "examples", "sql", "anomalies.sql");
  private static final String TOPIC = "financial-transactions"; // as the script names it
  private static final long SEED = 20_260_105L;

  private static StackFixture fixture;
  private static LocalStack stack;
  private static RESTCatalog catalog;
  private static Path tallyYaml;

  @BeforeAll
  static void startStack() throws Exception {
    // Under target/, not a @TempDir: the services' logs stay for diagnosis.
    fixture = StackFixture.start("sql-anomalies-it");
    Path root = fixture.root();
    stack = fixture.stack();
    catalog = fixture.catalog();
    stack.kafka().createTopic(TOPIC, AnomalyDataset.PARTITIONS, AnomalyDataset.TOPIC_CONFIG);
    // The job's settings for the SQL runner; the script names its own source and table.
    tallyYaml =
        TallyYaml.builder(stack.tallyServices())
            .topic(TOPIC)
            .groupId("tally-sql-anomalies")
            .transactionalIdPrefix("tally-sql-anomalies-dlq")
            .checkpointDirectory(root.resolve("checkpoints"))
            .checkpointInterval(Duration.ofSeconds(1))
            .parallelism(2)
            .writeTo(root.resolve("tally.yaml"));
  }

  @AfterAll
  static void stopStack() throws Exception {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theScriptWritesTheVerdictsOfItsOwnSemanticsAndDiffersFromTheContractOnlyWhereDocumented()
      throws Exception {
    AnomalyDataset data = AnomalyDataset.generate(SEED, AnomalyDataset.Shape.DEFAULT);
    TopicWriter.produce(stack.kafka().bootstrapServers(), TOPIC, data.inputs(), Duration.ZERO);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    // Bounded: the job ends after the input, and its final watermark judges every row.
    Map<String, String> environment = stack.boundedSqlScriptEnvironment();
    int code =
        TallyMain.run(
            new String[] {"sql", "--file", SCRIPT.toString(), "--config", tallyYaml.toString()},
            environment::get,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as("exit code; stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();

    Map<TransactionKey, Anomaly> table =
        AnomalyTableReader.read(catalog, TableIdentifier.of("analytics", "spending_anomalies_sql"));
    Map<TransactionKey, Anomaly> expected = SqlAnomalyOracle.anomalies(data.transactions());
    OracleDifferences differences = OracleDifferences.of(data.transactions());
    Set<TransactionKey> contract = data.expectedAnomalies().keySet();
    System.out.println(
        data
            + "\nSQL table: "
            + table.size()
            + " anomalies; the contract's rule: "
            + contract.size()
            + "; "
            + differences);

    // Entry by entry, so a failure names the rows missing and the rows not expected.
    assertThat(table).as("the SQL form's oracle").containsExactlyInAnyOrderEntriesOf(expected);
    assertThat(table).as("not vacuous").hasSizeGreaterThan(50);
    assertThat(differences.unexplained()).as("differences without a documented cause").isEmpty();
    assertThat(differences.explained())
        .as("the dataset has a case of every cause")
        .containsOnlyKeys(OracleDifferences.Cause.values());
    // The table's differences from the contract's verdicts are exactly the explained ones.
    Set<TransactionKey> differ = new TreeSet<>(table.keySet());
    differ.addAll(contract);
    Set<TransactionKey> both = new TreeSet<>(table.keySet());
    both.retainAll(contract);
    differ.removeAll(both);
    assertThat(differ)
        .containsExactlyInAnyOrderElementsOf(
            differences.explained().values().stream().flatMap(List::stream).toList());
  }
}
