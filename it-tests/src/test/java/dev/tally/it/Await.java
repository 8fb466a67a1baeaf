package dev.tally.it;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Condition-based waiting for the integration tests: poll, never sleep and hope. */
public final class Await {

  private Await() {}

  /**
   * Polls {@code condition} every 100 ms until it holds; a condition that throws counts as not yet
   * (e.g. a job not yet known to the JobManager).
   *
   * @throws AssertionError naming {@code what}, with the last exception, after {@code timeout}
   */
  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        last = e;
      }
      sleep(Duration.ofMillis(100));
    }
    throw new AssertionError("timed out waiting for " + what + " after " + timeout, last);
  }

  /** Sleeps, turning an interrupt into an exception with the interrupt flag kept. */
  public static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
