package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class CompareOptionsTest {

  private static BenchOptions parse(String... args) {
    return CommandLine.populateCommand(new BenchOptions(), args);
  }

  @Test
  void aLiveDurationThatMeasuresNoWholeWindowIsRefusedBeforeAnythingStarts() {
    // warm-up 30 s + 2 x 10 s windows + 2 s out-of-orderness = 52 s at the defaults
    assertThatThrownBy(() -> Compare.validate(parse("--duration", "51s"), 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("52000 ms");
    assertThatCode(() -> Compare.validate(parse("--duration", "52s"), 3))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                Compare.validate(
                    parse("--duration", "40s", "--warmup", "10s", "--window", "5s"), 1))
        .doesNotThrowAnyException();
  }

  @Test
  void noKillsGiveNoRecoveryFigure() {
    assertThatThrownBy(() -> Compare.validate(parse(), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--kills");
  }
}
