package dev.tally.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;

/** The client finds a vertex by its chain head's uid as Flink itself derives the vertex id. */
class FlinkRestClientTest {

  @Test
  void theVertexIdOfEveryChainHeadIsTheOneFlinkDerivesFromItsUid() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.fromSequence(1, 100)
        .uid("numbers")
        .name("Numbers")
        .map(n -> n * 2)
        .returns(Types.LONG)
        .uid("doubled")
        .name("Doubled")
        .keyBy(n -> n % 7)
        .map(n -> n + 1)
        .returns(Types.LONG)
        .uid("tally-spending-aggregator")
        .name("Aggregate per key")
        .sinkTo(new DiscardingSink<>())
        .uid("discard")
        .name("Discard");

    JobGraph graph = env.getStreamGraph().getJobGraph();
    Map<String, String> idByName =
        StreamSupport.stream(graph.getVertices().spliterator(), false)
            .collect(
                java.util.stream.Collectors.toMap(
                    JobVertex::getName, v -> v.getID().toHexString()));

    // Two chains: the source with its chained map, and the keyed map with the sink behind it.
    assertThat(idByName).hasSize(2);
    assertThat(List.copyOf(idByName.values()))
        .containsExactlyInAnyOrder(
            FlinkRestClient.vertexIdOfUid("numbers"),
            FlinkRestClient.vertexIdOfUid("tally-spending-aggregator"));
    assertThat(FlinkRestClient.vertexIdOfUid("doubled"))
        .isNotIn(idByName.values())
        .hasSize(32)
        .matches("[0-9a-f]{32}");
  }
}
