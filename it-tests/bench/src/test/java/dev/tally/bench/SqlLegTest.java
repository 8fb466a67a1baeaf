package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SqlLegTest {

  @Test
  void aDurationBecomesAnIntervalLiteralInTheLargestUnitThatHoldsItWhole() {
    assertThat(SqlLeg.interval(Duration.ofHours(1))).isEqualTo("INTERVAL '1' HOUR");
    assertThat(SqlLeg.interval(Duration.ofMinutes(90))).isEqualTo("INTERVAL '90' MINUTE");
    assertThat(SqlLeg.interval(Duration.ofSeconds(5))).isEqualTo("INTERVAL '5' SECOND");
    assertThat(SqlLeg.interval(Duration.ofMillis(500))).isEqualTo("INTERVAL '0.500' SECOND");
  }

  @Test
  void aLeadingFieldOfMoreThanTwoDigitsIsGivenItsPrecision() {
    // INTERVAL '150' SECOND is rejected: "exceeds precision of SECOND(2) field".
    assertThat(SqlLeg.interval(Duration.ofSeconds(150))).isEqualTo("INTERVAL '150' SECOND(3)");
    assertThat(SqlLeg.interval(Duration.ofMillis(100_250)))
        .isEqualTo("INTERVAL '100.250' SECOND(3)");
    assertThat(SqlLeg.interval(Duration.ofHours(100))).isEqualTo("INTERVAL '100' HOUR(3)");
  }

  @Test
  void theDefaultsAreTheSeeds() {
    assertThat(SqlLeg.interval(SqlLeg.WINDOW)).isEqualTo("INTERVAL '1' HOUR");
    assertThat(SqlLeg.interval(SqlLeg.OUT_OF_ORDERNESS)).isEqualTo("INTERVAL '5' SECOND");
  }

  @Test
  void aDurationThatIsNotPositiveIsRefused() {
    assertThatThrownBy(() -> SqlLeg.interval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
