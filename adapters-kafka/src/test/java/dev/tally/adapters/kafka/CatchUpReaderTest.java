package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

// The connector deprecates the "latest" stopping marker that the reader relies on; see
// CatchUpReader.
@SuppressWarnings("deprecation")
class CatchUpReaderTest {

  private static final TopicPartition PARTITION = new TopicPartition("txs", 3);

  @Test
  void aBoundedReaderStopsASplitRestoredWithoutStoppingOffsetAtThePartitionsEnd() {
    KafkaPartitionSplit streaming = new KafkaPartitionSplit(PARTITION, 1_234);

    List<KafkaPartitionSplit> stopping = CatchUpReader.stopping(List.of(streaming));

    assertThat(stopping).hasSize(1);
    assertThat(stopping.get(0).getTopicPartition()).isEqualTo(PARTITION);
    assertThat(stopping.get(0).getStartingOffset()).isEqualTo(1_234);
    assertThat(stopping.get(0).getStoppingOffset()).contains(KafkaPartitionSplit.LATEST_OFFSET);
  }

  @Test
  void aSplitWithItsOwnStoppingOffsetKeepsIt() {
    KafkaPartitionSplit bounded = new KafkaPartitionSplit(PARTITION, 1_234, 5_000);

    assertThat(CatchUpReader.stopping(List.of(bounded))).containsExactly(bounded);
  }
}
