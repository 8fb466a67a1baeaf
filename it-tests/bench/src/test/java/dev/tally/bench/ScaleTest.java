package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tally.stack.FlinkRestClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ScaleTest {

  private static Bench.ScaleMode parse(String... args) {
    return CommandLine.populateCommand(new Bench.ScaleMode(), args);
  }

  @Test
  void theDefaultGridHasTheIssuesThreePointsAndTheReferenceCell() {
    Bench.ScaleMode mode = parse();
    assertThat(mode.grid())
        .containsExactly(
            new Scale.Cell(1_000_000, 10_000),
            new Scale.Cell(5_000_000, 100_000),
            new Scale.Cell(5_000_000, 1_000_000),
            new Scale.Cell(20_000_000, 1_000_000))
        .contains(Scale.REFERENCE);
    assertThat(mode.ceiling).isTrue();
  }

  @Test
  void theBenchHasTheScaleModeAndItsHelpNamesTheGridOptions() {
    CommandLine bench = new CommandLine(Bench.class);
    CommandLine.ParseResult parsed = bench.parseArgs("scale", "--cells", "20Mx1M", "--no-ceiling");
    Bench.ScaleMode mode = (Bench.ScaleMode) parsed.subcommand().commandSpec().userObject();
    assertThat(mode.grid()).containsExactly(new Scale.Cell(20_000_000, 1_000_000));
    assertThat(mode.ceiling).isFalse();
    assertThat(bench.getSubcommands().get("scale").getUsageMessage())
        .contains("--cells", "--[no-]ceiling", "--time-limit", Scale.DEFAULT_CELLS);
  }

  @Test
  void cellsAreReadWithUnitsAndUnderscoresAndLabelledBackShortest() {
    Bench.ScaleMode mode = parse("--cells", "20Mx1M,5_000_000x100k,1500x7", "--no-ceiling");
    assertThat(mode.grid())
        .containsExactly(
            new Scale.Cell(20_000_000, 1_000_000),
            new Scale.Cell(5_000_000, 100_000),
            new Scale.Cell(1_500, 7));
    assertThat(mode.grid())
        .extracting(Scale.Cell::label)
        .containsExactly("20Mx1M", "5Mx100k", "1500x7");
    assertThat(Scale.Cell.parse("2mx3K")).isEqualTo(new Scale.Cell(2_000_000, 3_000));
    assertThat(mode.ceiling).isFalse();
    // The bench's other options still reach the cells.
    assertThat(parse("--partitions", "4", "--hours", "3").options.partitions).isEqualTo(4);
  }

  @Test
  void aCellThatIsNotEventsByUsersIsRefusedBeforeAnythingStarts() {
    assertThatThrownBy(() -> parse("--cells", "20M").grid())
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("<events>x<users>");
    assertThatThrownBy(() -> parse("--cells", "1Mx0").grid())
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("at least one");
    assertThatThrownBy(() -> parse("--cells", "1Mx3000M").grid())
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("too many users");
    assertThatThrownBy(() -> parse("--cells", "1Mx10k,1000000x10000").grid())
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("1Mx10k is named twice");
  }

  @Test
  void theStatePerIdsIsTheLargestCountedCheckpointsNotTheLast() {
    List<FlinkRestClient.Checkpoint> checkpoints =
        List.of(
            checkpoint(1, 100_000_000),
            checkpoint(2, 300_000_000),
            // larger, but its records are unknown
            checkpoint(3, 500_000_000),
            // after the final watermark dropped every id
            checkpoint(4, 1_000_000));
    Map<Long, Long> recordsAt = Map.of(1L, 1_000_000L, 2L, 4_000_000L, 4L, 5_000_000L);

    Scale.StatePerIds state = Scale.StatePerIds.of(checkpoints, recordsAt).orElseThrow();

    assertThat(state.checkpointId()).isEqualTo(2);
    assertThat(state.ids()).isEqualTo(4_000_000);
    assertThat(state.bytesPerMillionIds()).isEqualTo(75_000_000.0);
    assertThat(Scale.StatePerIds.of(checkpoints, Map.of())).isEmpty();
  }

  @Test
  void theReferenceRatioNeedsTheReferenceCellMeasured() {
    Scale.CellResult reference = result(Scale.REFERENCE, 100_000);
    Scale.CellResult big = result(new Scale.Cell(20_000_000, 1_000_000), 60_000);

    assertThat(Scale.overReference(big, List.of(reference, big)))
        .hasValueSatisfying(x -> assertThat(x).isCloseTo(0.6, within(1e-9)));
    assertThat(Scale.overReference(big, List.of(big))).isEmpty();
    assertThat(Scale.markdown(List.of(reference, big))).contains("| 20Mx1M | ok | 60,000 | 0.60 |");
  }

  private static FlinkRestClient.Checkpoint checkpoint(long id, long stateBytes) {
    return new FlinkRestClient.Checkpoint(id, "COMPLETED", false, stateBytes, stateBytes / 10, 100);
  }

  private static Scale.CellResult result(Scale.Cell cell, double eventsPerSecond) {
    LegResult tally =
        new LegResult(
            "tally",
            "ok",
            "exact",
            cell.events(),
            cell.events() / eventsPerSecond,
            0,
            10,
            2_000,
            4,
            8,
            0);
    return new Scale.CellResult(
        cell,
        1,
        tally,
        null,
        CheckpointWatch.Figures.of(List.of()),
        java.util.Optional.empty(),
        "");
  }
}
