package dev.tally.domain.spending;

import dev.tally.domain.rejection.Rejection;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.window.EventTimeWindow;
import dev.tally.domain.window.TumblingWindows;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The rules of one user's spending ledger (docs/behaviour.md "Aggregation" and "Rejections"): which
 * transaction is counted, dropped as an exact duplicate or rejected, the exact total of each
 * (currency, tumbling window), and when each window's row is emitted.
 *
 * <p>Per transaction, in this order ({@link #accept}):
 *
 * <ol>
 *   <li>An id already counted for this user: an exact duplicate when the content is the same, else
 *       {@code CONFLICTING_DUPLICATE}, whatever the currency.
 *   <li>An event whose window is final (see below) is {@code LATE}.
 *   <li>Otherwise it is added to its (currency, window) total; a total or count that would leave
 *       the 64-bit range rejects it as {@code AMOUNT_OVERFLOW} and keeps the previous total.
 * </ol>
 *
 * <p>A window's row is emitted once the watermark completes the window ({@link #fire}); an event
 * counted after that, within the allowed lateness, emits the updated row at once; early firing
 * emits the changed rows of windows still open ({@link #fireEarly}). No row is emitted twice with
 * the same value.
 *
 * <p>Pure and stateless, so it costs nothing to share: the ledger's state (the user's open windows,
 * and what is remembered of one transaction id) is passed in and the new state returned, and the
 * caller keeps it wherever suits it and loads only what one event needs. Nor does it read a clock:
 * time is only the watermark the caller passes, the event time up to which (inclusive) the input is
 * complete, {@code Long.MIN_VALUE} before any. A window {@code [start, end)} is complete at {@code
 * end - 1} ({@link #completeAt}) and final {@code allowedLateness} later ({@link #finalAt}): the
 * behaviour contract's "watermark ≥ end + allowed lateness", for a watermark that counts the
 * instant it names as done.
 */
public final class UserLedger implements Serializable {

  private static final long serialVersionUID = 1L;

  private static final OpenWindow[] NONE = new OpenWindow[0];

  private final TumblingWindows windows;
  private final Duration allowedLateness;
  private final long size;
  private final long lateness;

  /**
   * @param windows the tumbling windows spending is summed in
   * @param allowedLateness how long after a window is complete events still update its row; not
   *     negative, counted in whole milliseconds
   */
  public UserLedger(TumblingWindows windows, Duration allowedLateness) {
    this.windows = Objects.requireNonNull(windows, "windows");
    this.allowedLateness = Objects.requireNonNull(allowedLateness, "allowedLateness");
    if (allowedLateness.isNegative()) {
      throw new IllegalArgumentException(
          "allowed lateness must not be negative: " + allowedLateness);
    }
    this.size = windows.size().toMillis();
    this.lateness = allowedLateness.toMillis();
  }

  /** The event time at which the window starting at {@code windowStart} is complete. */
  public long completeAt(long windowStart) {
    return windowStart + size - 1;
  }

  /** The event time from which the window starting at {@code windowStart} is final. */
  public long finalAt(long windowStart) {
    return completeAt(windowStart) + lateness;
  }

  /**
   * Judges {@code tx} against the user's ledger: {@link #screen}, then {@link #count} what passes.
   *
   * @param tx a transaction of this ledger's user
   * @param counted what is remembered of a counted transaction with the same id, {@code null} for
   *     none
   * @param open the user's open windows, {@code null} or empty for none; not modified
   * @param watermark the event time up to which the input is complete
   */
  public Verdict accept(
      Transaction tx, SeenTransaction counted, OpenWindow[] open, long watermark) {
    Optional<Verdict> screened = screen(tx, counted, watermark);
    return screened.isPresent() ? screened.get() : count(tx, open, watermark);
  }

  /**
   * The first step of {@link #accept}, which needs no open windows, so a caller whose state is
   * costly to read loads them only for a transaction that passes: an exact duplicate, {@code
   * CONFLICTING_DUPLICATE} (whatever the currency) or {@code LATE}; empty when nothing stops it.
   */
  public Optional<Verdict> screen(Transaction tx, SeenTransaction counted, long watermark) {
    if (counted != null) {
      return Optional.of(
          counted.sameContentAs(tx)
              ? Verdict.EXACT_DUPLICATE
              : rejected(RejectionReason.CONFLICTING_DUPLICATE, conflictMessage(tx, counted)));
    }
    long start = windows.windowStart(tx.eventTimeMillis());
    if (finalAt(start) <= watermark) {
      return Optional.of(rejected(RejectionReason.LATE, lateMessage(tx, start, watermark)));
    }
    return Optional.empty();
  }

  /**
   * The second step of {@link #accept}, for a transaction {@link #screen} let through: counts it
   * into its window, or rejects it as {@code AMOUNT_OVERFLOW}.
   */
  public Verdict count(Transaction tx, OpenWindow[] open, long watermark) {
    long start = windows.windowStart(tx.eventTimeMillis());
    int index = indexOf(open, tx.currency(), start);
    OpenWindow current = index < 0 ? null : open[index];
    Addition sum =
        current == null
            ? SpendingAggregate.EMPTY.add(tx.amountCents())
            : SpendingAggregate.add(
                current.totalSpentCents(), current.transactionCount(), tx.amountCents());
    if (!(sum instanceof SpendingAggregate updated)) {
      return rejected(
          RejectionReason.AMOUNT_OVERFLOW, overflowMessage(tx, start, ((Overflow) sum).message()));
    }
    // Counted after the window was complete: its row is out already, so upsert it now.
    boolean late = completeAt(start) <= watermark;
    WindowedSpending upsert =
        late
            ? row(
                tx.userId(),
                tx.currency(),
                start,
                updated,
                current == null || !current.everEmitted())
            : null;
    OpenWindow next =
        current == null
            ? new OpenWindow(
                tx.currency(),
                start,
                updated.totalSpentCents(),
                updated.transactionCount(),
                late,
                late)
            : current.withValue(updated, late);
    return new Verdict.Counted(
        with(open, index, next),
        start,
        upsert,
        current == null,
        current == null && !startsAlsoIn(open, start));
  }

  /**
   * Emits every window complete at {@code completeUpTo} whose value was not emitted as is, and
   * drops the windows final by then.
   *
   * @param open the user's open windows; not modified
   */
  public Firing fire(String userId, OpenWindow[] open, long completeUpTo) {
    List<WindowedSpending> rows = new ArrayList<>(0);
    List<OpenWindow> kept = new ArrayList<>(open.length);
    boolean changed = false;
    for (OpenWindow window : open) {
      long complete = completeAt(window.windowStart());
      if (complete > completeUpTo) {
        kept.add(window);
        continue;
      }
      if (!window.emitted()) {
        rows.add(row(userId, window));
        changed = true;
      }
      if (complete + lateness <= completeUpTo) {
        changed = true;
      } else {
        kept.add(window.markEmitted());
      }
    }
    return new Firing(rows, changed ? kept.toArray(NONE) : open, changed);
  }

  /**
   * Emits every window not complete at {@code watermark} whose value changed since it was last
   * emitted: the running rows of early firing.
   *
   * @param open the user's open windows; not modified
   */
  public Firing fireEarly(String userId, OpenWindow[] open, long watermark) {
    List<WindowedSpending> rows = new ArrayList<>(0);
    OpenWindow[] kept = open.clone();
    for (int i = 0; i < kept.length; i++) {
      OpenWindow window = kept[i];
      if (!window.emitted() && completeAt(window.windowStart()) > watermark) {
        rows.add(row(userId, window));
        kept[i] = window.markEmitted();
      }
    }
    return rows.isEmpty() ? new Firing(rows, open, false) : new Firing(rows, kept, true);
  }

  private WindowedSpending row(String userId, OpenWindow window) {
    return row(
        userId, window.currency(), window.windowStart(), window.aggregate(), !window.everEmitted());
  }

  private WindowedSpending row(
      String userId, String currency, long start, SpendingAggregate value, boolean first) {
    return new WindowedSpending(new SpendingKey(userId, currency), window(start), value, first);
  }

  private EventTimeWindow window(long start) {
    return new EventTimeWindow(start, start + size);
  }

  private static Verdict rejected(RejectionReason reason, String message) {
    return new Verdict.Rejected(new Rejection(reason, message));
  }

  private static int indexOf(OpenWindow[] open, String currency, long windowStart) {
    if (open != null) {
      for (int i = 0; i < open.length; i++) {
        if (open[i].is(currency, windowStart)) {
          return i;
        }
      }
    }
    return -1;
  }

  private static boolean startsAlsoIn(OpenWindow[] open, long windowStart) {
    if (open != null) {
      for (OpenWindow window : open) {
        if (window.windowStart() == windowStart) {
          return true;
        }
      }
    }
    return false;
  }

  /** {@code open} with {@code window} at {@code index}, or appended when {@code index} is -1. */
  private static OpenWindow[] with(OpenWindow[] open, int index, OpenWindow window) {
    if (open == null || open.length == 0) {
      return new OpenWindow[] {window};
    }
    OpenWindow[] copy = Arrays.copyOf(open, index < 0 ? open.length + 1 : open.length);
    copy[index < 0 ? open.length : index] = window;
    return copy;
  }

  private String lateMessage(Transaction tx, long windowStart, long watermark) {
    return "event_timestamp "
        + tx.eventTime()
        + " falls in window "
        + window(windowStart)
        + ", final since the watermark "
        + Instant.ofEpochMilli(watermark + 1)
        + " passed its end plus the allowed lateness "
        + allowedLateness;
  }

  private String overflowMessage(Transaction tx, long windowStart, String overflow) {
    return "counting amount_cents "
        + tx.amountCents()
        + " in window "
        + window(windowStart)
        + " of "
        + tx.userId()
        + "/"
        + tx.currency()
        + ": "
        + overflow;
  }

  private static String conflictMessage(Transaction tx, SeenTransaction counted) {
    return "transaction_id "
        + tx.transactionId()
        + " was already counted for user "
        + tx.userId()
        + " with amount_cents="
        + counted.amountCents()
        + " currency="
        + counted.currency()
        + " event_timestamp="
        + Instant.ofEpochMilli(counted.eventTimeMillis())
        + "; this record has amount_cents="
        + tx.amountCents()
        + " currency="
        + tx.currency()
        + " event_timestamp="
        + tx.eventTime();
  }
}
