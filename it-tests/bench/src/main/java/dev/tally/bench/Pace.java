package dev.tally.bench;

/** A rate limit for one thread: {@link #await} returns at most {@code perSecond} times a second. */
final class Pace {
  private final int perSecond;
  private long started = System.nanoTime();
  private long passed;

  Pace(int perSecond) {
    this.perSecond = perSecond;
  }

  /** Sleeps until the next pass is due. */
  void await() throws InterruptedException {
    passed++;
    long due = started + passed * 1_000_000_000L / perSecond;
    long wait = due - System.nanoTime();
    if (wait > 0) {
      Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
    } else if (wait < -1_000_000_000L) {
      // Idle time is not credit: after a quiet spell the limit applies again at once.
      started = System.nanoTime();
      passed = 0;
    }
  }
}
