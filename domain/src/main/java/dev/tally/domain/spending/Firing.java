package dev.tally.domain.spending;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link UserLedger} emits as event time passes (or an early-firing interval ends), and the
 * open windows it keeps afterwards.
 *
 * @param rows the rows to emit, in the order of the windows
 * @param windows the user's open windows afterwards; empty when none is left
 * @param changed whether {@code windows} differs from what the ledger was given, so it must be
 *     stored
 */
public record Firing(List<WindowedSpending> rows, OpenWindow[] windows, boolean changed) {

  public Firing {
    Objects.requireNonNull(rows, "rows");
    Objects.requireNonNull(windows, "windows");
  }
}
