package dev.tally.domain.spending;

import dev.tally.domain.window.EventTimeWindow;
import java.util.Objects;

/**
 * One row of the output table (docs/behaviour.md "Output table"): a key's aggregate in one window.
 * The primary key is (user, currency, window start); a later row for the same key replaces an
 * earlier one (an upsert).
 *
 * <p>{@code firstForKey} lets a sink skip the "replace" half of an upsert: it is {@code true} only
 * when the emitter knows, from the same state that decides what it emits, that no row for this key
 * was emitted before. A sink may then write a plain insert, without first deleting the key. Only
 * rows emitted earlier from the same state lineage are covered: rows written by another run (one
 * started without this state) are not, and a sink must still replace whatever it may already hold
 * for the key. When in doubt an emitter says {@code false}; {@code false} is always correct.
 *
 * @param key user and currency
 * @param window the event-time window
 * @param aggregate the exact total and count
 * @param firstForKey whether this is the first row emitted for the key (see above)
 */
public record WindowedSpending(
    SpendingKey key, EventTimeWindow window, SpendingAggregate aggregate, boolean firstForKey) {

  public WindowedSpending {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(aggregate, "aggregate");
  }

  /** A row that may replace an earlier one for its key ({@code firstForKey} false). */
  public WindowedSpending(SpendingKey key, EventTimeWindow window, SpendingAggregate aggregate) {
    this(key, window, aggregate, false);
  }
}
