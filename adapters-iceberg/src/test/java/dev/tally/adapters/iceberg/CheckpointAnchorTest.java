package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.iceberg.flink.TableLoader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sink's checkpoint anchor labels each committable with the watermark it has seen, as {@link
 * CompletenessMarker} counts it, and after a restore never with less than it labelled before.
 */
class CheckpointAnchorTest {

  @RegisterExtension final LocalCatalog local = new LocalCatalog();

  private TableLoader tableLoader;

  @BeforeEach
  void createTable() {
    tableLoader = TableLoader.fromHadoopTable(local.createSpendingTable(4).location());
  }

  @Test
  void labelsEachCommittableWithTheWatermarkBeforeItAndNeverLessAfterARestore() throws Exception {
    OperatorSubtaskState state;
    OneInputStreamOperatorTestHarness<Object, Object> anchor = anchor();
    try {
      anchor.open();
      commit(anchor, 1);
      anchor.processWatermark(new Watermark(7_199_999L));
      commit(anchor, 2);
      assertThat(labels(anchor)).containsExactly(Long.MIN_VALUE, 7_200_000L);
      state = anchor.snapshot(2, 0);
    } finally {
      anchor.close();
    }
    OneInputStreamOperatorTestHarness<Object, Object> restored = anchor();
    try {
      restored.initializeState(state);
      restored.open();
      // Restored: the live watermark starts from nothing, then from behind what was labelled.
      commit(restored, 3);
      restored.processWatermark(new Watermark(5_000L));
      commit(restored, 4);
      restored.processWatermark(new Watermark(10_799_999L));
      commit(restored, 5);
      restored.processWatermark(new Watermark(Long.MAX_VALUE));
      commit(restored, 6);
      assertThat(labels(restored))
          .containsExactly(7_200_000L, 7_200_000L, 10_800_000L, Long.MAX_VALUE);
    } finally {
      restored.close();
    }
  }

  @Test
  void passesSummariesOnAndKeepsEachCommittableAndItsCheckpoint() throws Exception {
    OneInputStreamOperatorTestHarness<Object, Object> anchor = anchor();
    try {
      anchor.open();
      anchor.processWatermark(new Watermark(99L));
      commit(anchor, 7);
      List<Object> out = anchor.extractOutputValues();
      assertThat(out).hasSize(2);
      assertThat(out.get(0)).isEqualTo(new CommittableSummary<>(0, 1, 7, 1, 0));
      assertThat(out.get(1))
          .isEqualTo(
              new CommittableWithLineage<>(
                  new WatermarkedCommittable<>("committable of 7", 7, 100L), 7, 0));
    } finally {
      anchor.close();
    }
  }

  private OneInputStreamOperatorTestHarness<Object, Object> anchor() throws Exception {
    return new OneInputStreamOperatorTestHarness<>(
        new ProcessOperator<>(new TallyIcebergSink.CheckpointAnchor(tableLoader)));
  }

  /** What Iceberg's aggregator emits for a checkpoint: its summary, then its one committable. */
  private static void commit(OneInputStreamOperatorTestHarness<Object, Object> anchor, long id)
      throws Exception {
    anchor.processElement(new CommittableSummary<>(0, 1, id, 1, 0), 0);
    anchor.processElement(new CommittableWithLineage<>("committable of " + id, id, 0), 0);
  }

  private static List<Long> labels(OneInputStreamOperatorTestHarness<Object, Object> anchor) {
    return anchor.extractOutputValues().stream()
        .filter(CommittableWithLineage.class::isInstance)
        .map(m -> ((WatermarkedCommittable<?>) ((CommittableWithLineage<?>) m).getCommittable()))
        .map(WatermarkedCommittable::watermark)
        .toList();
  }
}
