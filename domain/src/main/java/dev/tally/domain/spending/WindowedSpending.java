package dev.tally.domain.spending;

import dev.tally.domain.window.EventTimeWindow;
import java.util.Objects;

/**
 * One row of the output table (SPEC "Output table"): a key's aggregate in one window. The primary
 * key is (user, currency, window start); a later row for the same key replaces an earlier one (an
 * upsert).
 *
 * @param key user and currency
 * @param window the event-time window
 * @param aggregate the exact total and count
 */
public record WindowedSpending(
    SpendingKey key, EventTimeWindow window, SpendingAggregate aggregate) {

  public WindowedSpending {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(aggregate, "aggregate");
  }
}
