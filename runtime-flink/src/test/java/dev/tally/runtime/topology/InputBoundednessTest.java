package dev.tally.runtime.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import dev.tally.adapters.kafka.KafkaSourceConfig;
import dev.tally.adapters.kafka.KafkaSourceModule;
import dev.tally.ports.in.TransactionSource;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The aggregator learns whether its input ends from its sources (docs/behaviour.md "Upgrades and
 * restores": a bounded run may resume from state taken after its end, a streaming one may not). The
 * input here is Tally's own Kafka source, as the job builds it; building the graph reaches no
 * broker.
 */
class InputBoundednessTest {

  @Test
  void theAcceptedTransactionsOfABoundedKafkaSourceAreBounded() {
    assertThat(SpendingTopology.bounded(acceptedFrom(true))).isTrue();
  }

  @Test
  void theAcceptedTransactionsOfAStreamingKafkaSourceAreUnbounded() {
    assertThat(SpendingTopology.bounded(acceptedFrom(false))).isFalse();
  }

  private static Transformation<?> acceptedFrom(boolean bounded) {
    TransactionSource source =
        Guice.createInjector(
                new KafkaSourceModule(
                    KafkaSourceConfig.builder()
                        .bootstrapServers("localhost:9092")
                        .bounded(bounded)
                        .build()))
            .getInstance(TransactionSource.class);
    return source
        .open(StreamExecutionEnvironment.getExecutionEnvironment())
        .accepted()
        .getTransformation();
  }
}
