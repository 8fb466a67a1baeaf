package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DeadLetterSelectionTest {

  private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

  private static DeadLetter letter(String reason, Instant written, int partition, long offset) {
    return new DeadLetter(
        "t.dlq:0:7", written.toEpochMilli(), null, new byte[0], reason, "t", partition, offset);
  }

  @Test
  void noCriterionSelectsEveryDeadLetter() {
    DeadLetterSelection all = new DeadLetterSelection(Set.of(), null, null, null, null, null);

    assertThat(all.matches(letter("LATE", T, 3, 9))).isTrue();
    assertThat(all.describe()).isEqualTo("all");
  }

  @Test
  void everyCriterionGivenMustHold() {
    DeadLetterSelection selection =
        new DeadLetterSelection(Set.of("LATE", "MALFORMED"), T, T.plusSeconds(60), 2, 10L, 20L);

    assertThat(selection.matches(letter("LATE", T, 2, 10))).isTrue();
    assertThat(selection.matches(letter("MALFORMED", T.plusSeconds(59), 2, 19))).isTrue();
    assertThat(selection.matches(letter("INVALID_FIELD", T, 2, 10))).as("reason").isFalse();
    assertThat(selection.matches(letter("LATE", T.minusMillis(1), 2, 10))).as("since").isFalse();
    assertThat(selection.matches(letter("LATE", T.plusSeconds(60), 2, 10))).as("until").isFalse();
    assertThat(selection.matches(letter("LATE", T, 1, 10))).as("partition").isFalse();
    assertThat(selection.matches(letter("LATE", T, 2, 9))).as("from offset").isFalse();
    assertThat(selection.matches(letter("LATE", T, 2, 20))).as("to offset").isFalse();
    assertThat(selection.describe())
        .isEqualTo(
            "reason=LATE,MALFORMED since=2026-12-01T10:00:00Z until=2026-12-01T10:01:00Z"
                + " source-partition=2 from-offset=10 to-offset=20");
  }

  @Test
  void offsetsNeedAPartitionAndTheTimesAnOrder() {
    assertThatThrownBy(() -> new DeadLetterSelection(Set.of(), null, null, null, 1L, null))
        .hasMessage("source offsets need a source partition");
    assertThatThrownBy(() -> new DeadLetterSelection(Set.of(), T, T, null, null, null))
        .hasMessage("since must be before until");
  }
}
