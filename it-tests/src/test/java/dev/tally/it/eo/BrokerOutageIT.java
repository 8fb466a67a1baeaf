package dev.tally.it.eo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.oracle.ExactlyOnceVerdict;
import dev.tally.it.oracle.SpendingDataset;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/behaviour.md "Watermarks", on the real services: a broker outage several times longer than
 * the idle timeout, while the job is still working through the topic's backlog, changes no verdict.
 * Every partition is silent during it; a partition may go idle only once it is caught up with its
 * log end, which an unreachable broker cannot confirm, so when the broker is back the partitions
 * that deliver first cannot carry the watermark past the records still unread in the others. The
 * same job without the outage ends exactly too: the short timeout alone changes nothing either.
 */
class BrokerOutageIT {

  private static final SpendingDataset.Shape SHAPE =
      new SpendingDataset.Shape(100_000, 200, Duration.ofHours(4), false);

  /** Short, so that the outage is several timeouts long. */
  private static final String IDLE_TIMEOUT = "watermarks.idle-timeout=2s";

  @RegisterExtension static final MiniClusterExtension FLINK = ExactlyOnceIT.miniCluster();

  private static Harness harness;

  @BeforeAll
  static void produceTheDataset(@InjectMiniCluster MiniCluster flink) {
    long seed = Seeds.seed();
    System.out.printf("BrokerOutageIT seed %d (replay: -D%s=%d)%n", seed, Seeds.PROPERTY, seed);
    harness = Harness.start("broker-outage-it", flink, seed, SHAPE);
  }

  @AfterAll
  static void stop() {
    if (harness != null) {
      harness.close();
    }
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void withoutTheOutageTheShortIdleTimeoutMakesNoRecordLate() throws Exception {
    Harness.Run run = harness.run("no-outage");
    try {
      run.finishByDrain(run.submit(2, null, null, IDLE_TIMEOUT));
      assertExact(run);
    } finally {
      run.cancelUnfinishedJobs();
    }
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void anOutageLongerThanTheIdleTimeoutMidBacklogMakesNoRecordLate() throws Exception {
    Harness.Run run = harness.run("outage");
    try {
      JobID job = run.submit(2, null, null, IDLE_TIMEOUT);
      assertThat(run.awaitCheckpoints(job, 1)).as("the job runs").isTrue();
      harness.infrastructure().restartBroker(Duration.ofSeconds(10));
      run.finishByDrain(job);
      assertExact(run);
    } finally {
      run.cancelUnfinishedJobs();
    }
  }

  private static void assertExact(Harness.Run run) {
    ExactlyOnceVerdict verdict = run.verdict();
    assertThat(verdict.exact()).as(verdict.summary()).isTrue();
  }
}
