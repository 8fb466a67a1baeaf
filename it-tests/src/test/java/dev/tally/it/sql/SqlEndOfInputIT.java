package dev.tally.it.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.support.SeedSqlInput;
import dev.tally.it.support.SpendingRows.Key;
import dev.tally.it.support.SpendingRows.Totals;
import dev.tally.it.support.StackFixture;
import dev.tally.it.support.TallyCommand;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyYaml;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The end of a bounded input under Tally's default checkpoint policy (unaligned, interruptible
 * timers): the seed's SQL, run by {@code TallyMain sql}, writes every window, the last ones
 * included, which fire only on the final watermark. With many users per window, that watermark
 * fires thousands of timers while checkpoint barriers keep arriving; on Flink 2.1 an interrupted
 * firing was dropped when the task finished (FLINK-39481), and with it the last windows' rows.
 */
class SqlEndOfInputIT {

  private static final Path SCRIPT = Path.of("..", "examples", "sql", "seed-pipeline.sql");
  private static final int PARTITIONS = 8;
  // Many keys per window, so that firing a window end outlasts a checkpoint interval.
  private static final int USERS = 100_000;
  private static final int EVENTS = 300_000;

  private static StackFixture fixture;
  private static LocalStack stack;
  private static RESTCatalog catalog;
  private static Path tallyYaml;

  @BeforeAll
  static void startStack() throws Exception {
    // Under target/, not a @TempDir: the services' logs stay for diagnosis.
    fixture = StackFixture.start("sql-end-of-input-it");
    stack = fixture.stack();
    catalog = fixture.catalog();
    stack.kafka().createTopic(SeedSqlInput.TOPIC, PARTITIONS, Map.of("retention.ms", "-1"));
    // Tally's checkpoint policy as shipped, at the interval the other SQL ITs use: the input ends
    // between two checkpoints.
    tallyYaml =
        TallyYaml.builder(stack.tallyServices())
            .topic(SeedSqlInput.TOPIC)
            .groupId("tally-sql-end-of-input")
            .transactionalIdPrefix("tally-sql-end-of-input-dlq")
            .checkpointDirectory(fixture.root().resolve("checkpoints"))
            .checkpointInterval(Duration.ofSeconds(1))
            .parallelism(2)
            .writeTo(fixture.root().resolve("tally.yaml"));
  }

  @AfterAll
  static void stopStack() throws Exception {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theSqlRunnerWritesEveryWindowOfABoundedInput() throws Exception {
    Map<Key, Totals> oracle =
        SeedSqlInput.produce(stack.kafka().bootstrapServers(), PARTITIONS, USERS, EVENTS);

    TallyCommand.run(
        stack.boundedSqlScriptEnvironment()::get,
        "sql",
        "--file",
        SCRIPT.toString(),
        "--config",
        tallyYaml.toString());

    Map<Key, Totals> table = SeedSqlInput.readSeedTable(catalog, SeedSqlInput.TABLE);
    Totals expected = oracle.values().stream().reduce(Totals::plus).orElseThrow();
    Totals written = table.values().stream().reduce(Totals::plus).orElse(new Totals(0, 0));
    // Totals first: a failure says how much was lost before listing the rows.
    assertThat(written)
        .as("sum and count over %,d of %,d rows", table.size(), oracle.size())
        .isEqualTo(expected);
    assertThat(table).as("row by row").isEqualTo(oracle);
  }
}
