package dev.tally.runtime.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourcedTransaction;
import java.nio.file.Path;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Anomaly state of the retired layout (map states per currency and per hour, releases up to {@code
 * b970f33}) is refused at start with a message saying what to do, not silently ignored: this build
 * keeps a user's anomaly state in one value and would judge every restored user against an empty
 * baseline.
 *
 * <p>The snapshots under {@code src/test/resources/released-state/b970f33-anomalies/} were written
 * by the aggregator operator of {@code b970f33} with anomalies on (rule k = 4, 20 transactions): a
 * user with a transaction in each of three hours, the watermark at the end of the second.
 */
class RetiredAnomalyLayoutTest {

  private static final Path SNAPSHOTS =
      Path.of("src", "test", "resources", "released-state", "b970f33-anomalies");

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void aRestoreOfTheRetiredLayoutWithAnomaliesOnFailsSayingWhatToDo(String backend)
      throws Exception {
    Throwable failure =
        catchThrowable(() -> open(backend, new AnomalyRule(400, 20), released(backend)).close());

    assertThat(ExceptionUtils.findThrowable(failure, SuppressRestartsException.class))
        .as("retrying cannot help: %s", failure)
        .isPresent();
    assertThat(ExceptionUtils.stringifyException(failure))
        .contains(AnomalyWatch.refuseRetiredLayout())
        .contains("anomaly-baseline-heads", "Start without state");
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void withAnomaliesOffTheSameStateRestores(String backend) throws Exception {
    var harness = open(backend, null, released(backend));
    harness.processWatermark(Long.MAX_VALUE);
    assertThat(harness.extractOutputValues())
        .extracting(WindowedSpending::firstForKey)
        .isNotEmpty();
    harness.close();
  }

  private static OperatorSubtaskState released(String backend) throws Exception {
    return OperatorSnapshotUtil.readStateHandle(
        SNAPSHOTS.resolve("aggregator-" + backend + ".snapshot").toString());
  }

  private static KeyedOneInputStreamOperatorTestHarness<
          String, SourcedTransaction, WindowedSpending>
      open(String backend, AnomalyRule rule, OperatorSubtaskState state) throws Exception {
    var harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new SpendingAggregatorOperator(
                new SpendingAggregator(AggregationSettings.defaults(), rule),
                AggregationSettings.DEFAULT_WRITE_BACK_USERS),
            new SpendingTopology.ByUser(),
            Types.STRING);
    StateBackend stateBackend =
        backend.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    harness.setStateBackend(stateBackend);
    harness.initializeState(state);
    harness.open();
    return harness;
  }
}
