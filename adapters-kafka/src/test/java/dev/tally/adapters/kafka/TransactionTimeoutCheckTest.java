package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TransactionTimeoutCheckTest {

  @Test
  void aTimeoutWithinTheBrokerMaximumThatOutlivesFailedCheckpointsIsFine() {
    assertThat(
            TransactionTimeoutCheck.problems(
                Duration.ofMinutes(15),
                Duration.ofMinutes(15),
                Duration.ofSeconds(10),
                Duration.ofMinutes(2),
                3))
        .isEmpty();
  }

  @Test
  void aTimeoutAboveTheBrokerMaximumIsNamed() {
    assertThat(
            TransactionTimeoutCheck.problems(
                Duration.ofHours(1),
                Duration.ofMinutes(15),
                Duration.ofSeconds(10),
                Duration.ofMinutes(1),
                0))
        .singleElement()
        .asString()
        .contains("PT1H exceeds the broker's transaction.max.timeout.ms of PT15M");
  }

  @Test
  void aTimeoutShorterThanTheWorstCaseOpenTransactionIsNamedWithTheArithmetic() {
    assertThat(
            TransactionTimeoutCheck.problems(
                Duration.ofMinutes(5),
                Duration.ofMinutes(15),
                Duration.ofMinutes(1),
                Duration.ofMinutes(2),
                1))
        .singleElement()
        .asString()
        .contains(
            "PT6M = (1 tolerable checkpoint failures + 1) × (interval PT1M + checkpoint timeout PT2M)");
  }
}
