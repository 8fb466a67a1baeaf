package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class AnomalyLatencyModeTest {

  private static Bench.AnomalyLatencyMode parse(String... args) {
    CommandLine bench = new CommandLine(Bench.class);
    CommandLine.ParseResult parsed =
        bench.parseArgs(
            Stream.concat(Stream.of("anomaly-latency"), Arrays.stream(args))
                .toArray(String[]::new));
    return (Bench.AnomalyLatencyMode) parsed.subcommand().commandSpec().userObject();
  }

  @Test
  void byDefaultBothDeliveriesRunAfterAMinuteOfWarmUp() {
    Bench.AnomalyLatencyMode mode = parse();
    assertThat(mode.deliveries).containsExactly("exactly-once", "at-least-once");
    assertThat(mode.warmup()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void oneDeliveryAndAGivenWarmUpAreKept() {
    Bench.AnomalyLatencyMode mode = parse("--deliveries", "at-least-once", "--warmup", "30s");
    assertThat(mode.deliveries).containsExactly("at-least-once");
    assertThat(mode.warmup()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void theHelpNamesTheDeliveriesAndTheModesOwnWarmUp() {
    assertThat(
            new CommandLine(Bench.class).getSubcommands().get("anomaly-latency").getUsageMessage())
        .contains("--deliveries", "--tally-set", "anomaly-latency: 60s");
  }

  @Test
  void theAnomaliesModeRunsTheSqlLegUnlessToldNot() {
    CommandLine bench = new CommandLine(Bench.class);
    Bench.AnomaliesMode on =
        (Bench.AnomaliesMode) bench.parseArgs("anomalies").subcommand().commandSpec().userObject();
    assertThat(on.sql).isTrue();
    Bench.AnomaliesMode off =
        (Bench.AnomaliesMode)
            new CommandLine(Bench.class)
                .parseArgs("anomalies", "--no-sql", "--tally-set", "a=b")
                .subcommand()
                .commandSpec()
                .userObject();
    assertThat(off.sql).isFalse();
  }
}
