package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.WebOptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The settings the recovery bench gives its cluster, read as Flink reads them: the REST API must
 * show a recovered job within a poll or two, and a metrics query lost with a killed TaskManager
 * must not hold every metric back for Flink's default 10 minutes.
 */
class RecoveryTest {

  private final Configuration cluster = Configuration.fromMap(Recovery.MEASUREMENT);

  @Test
  void theTasksStatesAreServedFromAnExecutionGraphAtMostAPollOrTwoOld() {
    assertThat(cluster.get(WebOptions.REFRESH_INTERVAL))
        .isLessThanOrEqualTo(Duration.ofMillis(100));
  }

  @Test
  void aMetricsQueryToAKilledTaskManagerHoldsTheFetcherForSecondsNotMinutes() {
    assertThat(cluster.get(WebOptions.TIMEOUT)).isLessThanOrEqualTo(Duration.ofSeconds(3));
    assertThat(cluster.get(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL))
        .isLessThanOrEqualTo(Duration.ofMillis(200));
  }

  @Test
  void aFinalTableThatIsMerelyBehindIsReportedBehindAndAWrongOneStaysWrong() {
    LatencyFigure measured = LatencyFigure.of(java.util.List.of(2_000L, 3_000L), false, "note");
    assertThat(
            Recovery.classified(
                    measured, true, Recovery.BEHIND + " 100 final rows compared (windows ...)")
                .status())
        .isEqualTo("behind");
    assertThat(
            Recovery.classified(measured, true, LiveExpectation.WRONG + " 1 row differs").status())
        .isEqualTo("wrong");
    assertThat(
            Recovery.classified(measured, false, Recovery.BEHIND + " 100 final rows compared")
                .status())
        .isEqualTo("wrong");
  }

  @Test
  void theRecoveryModeTrainsAClassArchiveUnlessToldNotToAndCompareNever() {
    assertThat(classArchive()).isTrue();
    assertThat(classArchive("--class-archive")).isTrue();
    assertThat(classArchive("--no-class-archive")).isFalse();
    // compare's Flink legs measure cold standbys, as deploy/'s image ships no archive.
    CommandLine compare = new CommandLine(new Bench.CompareMode());
    assertThat(compare.getCommandSpec().options())
        .noneMatch(option -> option.longestName().endsWith("class-archive"));
  }

  /** What the recovery mode's command line makes of the archive option, read from its spec. */
  private static boolean classArchive(String... args) {
    CommandLine recovery = new CommandLine(new Bench.RecoveryMode());
    recovery.parseArgs(args);
    return recovery.getCommandSpec().options().stream()
        .filter(option -> option.longestName().endsWith("class-archive"))
        .map(option -> (Boolean) option.getValue())
        .findFirst()
        .orElseThrow();
  }
}
