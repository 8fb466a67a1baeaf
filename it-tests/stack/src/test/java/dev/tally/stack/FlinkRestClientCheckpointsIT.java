package dev.tally.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client reads what a real job's REST API says of its checkpoints and vertices: each completed
 * checkpoint's state size and uploaded size, and the records a vertex has sent on, which the bench
 * reports and which a wrong field name would silently leave at 0.
 */
class FlinkRestClientCheckpointsIT {

  /** Keeps one counter per key, so that every checkpoint has keyed state to write. */
  private static final class Count extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;

    private transient ValueState<Long> seen;

    @Override
    public void open(OpenContext context) {
      seen = getRuntimeContext().getState(new ValueStateDescriptor<>("seen", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context context, Collector<Long> out) throws Exception {
      Long before = seen.value();
      seen.update(before == null ? 1 : before + 1);
      out.collect(value);
    }
  }

  @Test
  @Timeout(120)
  void checkpointSizesAndVertexRecordCountsComeFromTheJobsRestApi() throws Exception {
    int port = LoopbackPorts.freePort();
    Configuration conf = new Configuration();
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.PORT, port);
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(500));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
    env.fromSequence(1, Long.MAX_VALUE)
        .uid("numbers")
        .keyBy(n -> n % 10_000)
        .process(new Count())
        .returns(Types.LONG)
        .uid("count")
        .sinkTo(new DiscardingSink<>())
        .uid("discard");
    JobClient job = env.executeAsync("checkpoints");
    try {
      FlinkRestClient rest = FlinkRestClient.onLoopback(port);
      String id = job.getJobID().toHexString();
      List<FlinkRestClient.Checkpoint> completed = List.of();
      while (completed.size() < 2) {
        Thread.sleep(200);
        completed = completedCheckpoints(rest, id);
      }
      FlinkRestClient.CheckpointStatistics statistics = rest.checkpoints(id);
      assertThat(statistics.latest().completed()).isNotNull();
      assertThat(statistics.latest().completed().stateSize()).isPositive();
      for (FlinkRestClient.Checkpoint c : completed) {
        assertThat(c.stateSize()).as("checkpoint %d's state", c.id()).isPositive();
        assertThat(c.checkpointedSize()).as("checkpoint %d's upload", c.id()).isPositive();
        assertThat(c.savepoint()).isFalse();
      }
      // Vertices come in topological order, the source first; the REST API refreshes their
      // counters every metrics.fetcher.update-interval (10 s), so they are 0 at first: a name the
      // mapping misses keeps them there, and the test times out.
      long sent = 0;
      while (sent == 0) {
        Thread.sleep(500);
        sent = rest.job(id).vertices().get(0).metrics().writeRecords();
      }
      assertThat(rest.job(id).vertices().get(1).metrics().readRecords())
          .as("records the counter received")
          .isPositive();
    } finally {
      job.cancel().get();
    }
  }

  private static List<FlinkRestClient.Checkpoint> completedCheckpoints(
      FlinkRestClient rest, String id) {
    try {
      return Optional.ofNullable(rest.checkpoints(id).history()).orElse(List.of()).stream()
          .filter(c -> "COMPLETED".equals(c.status()))
          .toList();
    } catch (RuntimeException e) {
      return List.of(); // the job is still initializing
    }
  }
}
