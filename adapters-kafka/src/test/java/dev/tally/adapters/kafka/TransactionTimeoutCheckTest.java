package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.adapters.kafka.TransactionTimeoutCheck.Lifetime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TransactionTimeoutCheckTest {

  /** The defaults: 10 s interval, no pause, 2 min timeout, 3 failures, 1 min × 1.1, 2 min down. */
  private static final Lifetime DEFAULTS =
      new Lifetime(
          Duration.ofSeconds(10),
          Duration.ZERO,
          Duration.ofMinutes(2),
          3,
          Duration.ofSeconds(66),
          Duration.ofMinutes(2));

  @Test
  void theLongestOpenTransactionAddsCheckpointsRestartBackoffAndDowntime() {
    // 4 × (10 s + 0 + 120 s) = 520 s, + 66 s + 120 s = 706 s
    assertThat(DEFAULTS.longest()).isEqualTo(Duration.ofSeconds(706));
    assertThat(
            new Lifetime(
                    Duration.ofMinutes(1),
                    Duration.ofSeconds(30),
                    Duration.ofMinutes(2),
                    0,
                    Duration.ofMinutes(1),
                    Duration.ofMinutes(10))
                .longest())
        .as("1 × (60 + 30 + 120) s + 60 s + 600 s")
        .isEqualTo(Duration.ofSeconds(870));
  }

  @Test
  void theDefaultTimeoutCoversTheDefaultPolicyAndFitsTheBrokersDefaultMaximum() {
    assertThat(
            TransactionTimeoutCheck.problems(
                Duration.ofMinutes(15), Duration.ofMinutes(15), DEFAULTS))
        .isEmpty();
  }

  @Test
  void aTimeoutAboveTheBrokerMaximumIsNamed() {
    assertThat(
            TransactionTimeoutCheck.problems(Duration.ofHours(1), Duration.ofMinutes(15), DEFAULTS))
        .singleElement()
        .asString()
        .contains("PT1H exceeds the broker's transaction.max.timeout.ms of PT15M");
  }

  @Test
  void aTimeoutThatTheRestartBackoffAndTheDowntimeOutlastIsNamedWithTheArithmetic() {
    // Enough for the checkpoints alone (520 s), not for a restart and an outage after them.
    assertThat(TransactionTimeoutCheck.policyProblems(Duration.ofMinutes(10), DEFAULTS))
        .singleElement()
        .asString()
        .contains(
            "PT10M is shorter than the longest a transaction may wait for its commit, PT11M46S ="
                + " (3 tolerable checkpoint failures + 1) × (interval PT10S + min pause PT0S +"
                + " checkpoint timeout PT2M) + worst restart backoff PT1M6S + recoverable"
                + " downtime PT2M");
    assertThat(TransactionTimeoutCheck.policyProblems(Duration.ofSeconds(706), DEFAULTS))
        .as("exactly the longest is enough")
        .isEmpty();
  }
}
