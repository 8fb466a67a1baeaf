package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.adapters.kafka.DeadLetterRollback.Clear;
import dev.tally.adapters.kafka.DeadLetterRollback.Letter;
import dev.tally.adapters.kafka.DeadLetterRollback.ReadOn;
import dev.tally.adapters.kafka.DeadLetterRollback.SentAgain;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeadLetterRollbackTest {

  private static Letter letter(int offset, String lineage, long afterCheckpoint) {
    return new Letter("dlq:0:" + offset, lineage, afterCheckpoint);
  }

  @Test
  void aDeadLetterOfTheLineageWrittenAfterTheRestoredCheckpointIsSentAgain() {
    Letter after = letter(9, "a", 7);
    assertThat(DeadLetterRollback.judge(List.of(after, letter(8, "a", 6)), "a", 7))
        .isEqualTo(new SentAgain(after));
  }

  @Test
  void deadLettersWrittenBeforeTheRestoredCheckpointAreInItsState() {
    assertThat(DeadLetterRollback.judge(List.of(letter(9, "a", 6), letter(8, "a", 5)), "a", 7))
        .isInstanceOf(ReadOn.class);
  }

  @Test
  void otherLineagesAndDeadLettersWithoutHeadersDoNotCount() {
    assertThat(
            DeadLetterRollback.judge(
                List.of(letter(9, "b", 100), letter(8, "", -1), letter(7, "a", -1)), "a", 7))
        .isInstanceOf(ReadOn.class);
  }

  @Test
  void theScanStopsOnlyBelowWhatCheckpointsInFlightCanLeaveBehind() {
    long checkpoint = 40;
    long lowest = checkpoint - 1 - DeadLetterRollback.MAX_IN_FLIGHT;
    assertThat(DeadLetterRollback.judge(List.of(letter(9, "a", lowest)), "a", checkpoint))
        .as("a writer as far behind as checkpoints in flight allow: older ones may follow")
        .isInstanceOf(ReadOn.class);
    assertThat(DeadLetterRollback.judge(List.of(letter(9, "a", lowest - 1)), "a", checkpoint))
        .isInstanceOf(Clear.class);
    Letter after = letter(8, "a", checkpoint);
    assertThat(
            DeadLetterRollback.judge(
                List.of(letter(9, "a", lowest), after, letter(7, "a", lowest - 1)),
                "a",
                checkpoint))
        .isEqualTo(new SentAgain(after));
  }

  @Test
  void theRefusalNamesTheDeadLetterAndBothCheckpoints() {
    assertThat(DeadLetterRollback.refusal("txs.dlq", letter(9, "a", 7), 7))
        .contains(
            "the dead-letter topic txs.dlq has a dead letter written after the restored state was"
                + " taken (dlq:0:9, written after checkpoint 7 of the state's lineage a; the state"
                + " is of checkpoint 7)");
  }
}
