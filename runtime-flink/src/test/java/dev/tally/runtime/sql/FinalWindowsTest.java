package dev.tally.runtime.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.adapters.iceberg.CompletenessMarker;
import dev.tally.domain.window.TumblingWindows;
import dev.tally.runtime.topology.AggregationSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The query command's {@code final} column: the behaviour contract's rule at the table's marker.
 */
class FinalWindowsTest {

  private static final Instant END = Instant.parse("2026-11-29T08:00:00Z");

  @Test
  void aWindowIsFinalExactlyWhenTheMarkerReachesItsEnd() {
    FinalWindows at = judge(marker(END.toEpochMilli()), Duration.ZERO);
    FinalWindows justBefore = judge(marker(END.toEpochMilli() - 1), Duration.ZERO);

    assertThat(at.isFinal(END)).isTrue();
    assertThat(at.isFinal(END.plusMillis(1))).isFalse();
    assertThat(justBefore.isFinal(END)).isFalse();
    assertThat(at.describe())
        .isEqualTo(
            "final: windows ending at or before 2026-11-29 08:00:00Z (tally.watermark of snapshot"
                + " 17: 2026-11-29 08:00:00Z)");
  }

  @Test
  void theAllowedLatenessKeepsAWindowOpenThatMuchLonger() {
    long marker = END.plus(Duration.ofMinutes(10)).toEpochMilli();
    FinalWindows lateness = judge(marker(marker), Duration.ofMinutes(10));
    FinalWindows more = judge(marker(marker), Duration.ofMinutes(10).plusMillis(1));

    assertThat(lateness.isFinal(END)).isTrue();
    assertThat(more.isFinal(END)).isFalse();
    assertThat(lateness.describe())
        .startsWith("final: windows ending at or before 2026-11-29 08:00:00Z")
        .endsWith("less the allowed lateness PT10M)");
  }

  @Test
  void noMarkerOrNoWatermarkYetMeansNothingFinalAndTheEndOfInputEverything() {
    assertThat(judge(Optional.empty(), Duration.ZERO).isFinal(Instant.EPOCH)).isFalse();
    assertThat(judge(marker(Long.MIN_VALUE), Duration.ZERO).isFinal(Instant.EPOCH)).isFalse();
    FinalWindows ended = judge(marker(Long.MAX_VALUE), Duration.ofHours(1));
    assertThat(ended.isFinal(Instant.parse("2999-01-01T00:00:00Z"))).isTrue();
    assertThat(ended.describe()).contains("every window");
  }

  private static Optional<CompletenessMarker> marker(long watermark) {
    return Optional.of(new CompletenessMarker(17, watermark));
  }

  private static FinalWindows judge(Optional<CompletenessMarker> marker, Duration lateness) {
    AggregationSettings defaults = AggregationSettings.defaults();
    return new FinalWindows(
        marker,
        new AggregationSettings(
            TumblingWindows.of(Duration.ofHours(1)),
            lateness,
            defaults.dedupeRetention(),
            defaults.earlyFiringInterval()));
  }
}
