package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SparkJobTest {

  @TempDir Path dir;

  @Test
  void processingAgainIsTheFirstBatchWithInputAfterTheKillNotANoDataBatchNorAnEarlierOne()
      throws Exception {
    Path log = dir.resolve("job.log");
    Files.writeString(
        log,
        """
        tally-spark started 1000
        tally-spark progress 0 500 2000
        12:00:00.000 WARN Something: tally-spark progress 9 9 9
        tally-spark started 5000
        tally-spark progress 1 0 6000
        tally-spark progress 1 700 7000
        tally-spark progress 2 300 8000
        """);

    assertThat(SparkJob.started(log)).hasValue(5000);
    assertThat(SparkJob.firstProgressWithInput(log, 3000)).hasValue(7000L);
    assertThat(SparkJob.firstProgressWithInput(log, Long.MIN_VALUE)).hasValue(2000L);
    assertThat(SparkJob.firstProgressWithInput(log, 8000)).isEmpty();
  }

  @Test
  void durationsAreGivenInSparksIntervalForm() {
    assertThat(SparkJob.interval(Duration.ofSeconds(5))).isEqualTo("5000 milliseconds");
  }
}
