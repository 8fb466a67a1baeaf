package dev.tally.domain.spending;

import dev.tally.domain.rejection.Rejection;
import java.util.Objects;

/**
 * What {@link UserLedger#accept} decided about one transaction, and why: counted, dropped as an
 * exact duplicate, or rejected with a reason and a message. Every outcome is a value, none an
 * exception, so the caller handles each on an ordinary path.
 */
public sealed interface Verdict permits Verdict.Counted, Verdict.Duplicate, Verdict.Rejected {

  /** The one {@link Duplicate}: it carries nothing. */
  Duplicate EXACT_DUPLICATE = new Duplicate();

  /**
   * The transaction is counted. The caller remembers it ({@link SeenTransaction#of}) and stores
   * {@code windows}.
   *
   * @param windows the user's open windows with the transaction counted, to store in place of the
   *     previous ones
   * @param windowStart the start of the window it was counted in, epoch milliseconds
   * @param upsert the window's new row to emit at once, because it arrived after the window was
   *     complete (within the allowed lateness); {@code null} when the row waits for the watermark
   * @param opensWindow whether it is the first transaction of its currency and window
   * @param opensStart whether, besides, no other window of the user with the same start is open
   *     (another currency's), so the window's firing times are not already awaited
   */
  record Counted(
      OpenWindow[] windows,
      long windowStart,
      WindowedSpending upsert,
      boolean opensWindow,
      boolean opensStart)
      implements Verdict {

    public Counted {
      Objects.requireNonNull(windows, "windows");
    }
  }

  /**
   * The same transaction (same id, user and content) was counted already: dropped, not an error.
   */
  record Duplicate() implements Verdict {}

  /**
   * The transaction is not counted, for the reason given: {@code CONFLICTING_DUPLICATE}, {@code
   * LATE} or {@code AMOUNT_OVERFLOW}.
   *
   * @param rejection the reason code and a message naming the values that decided it
   */
  record Rejected(Rejection rejection) implements Verdict {

    public Rejected {
      Objects.requireNonNull(rejection, "rejection");
    }
  }
}
