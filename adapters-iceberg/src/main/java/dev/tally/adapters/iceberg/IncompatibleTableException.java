package dev.tally.adapters.iceberg;

import java.util.List;

/**
 * The existing output table cannot take Tally's rows. Tally never alters a table to fit: fix the
 * table, or point Tally at another one.
 */
public final class IncompatibleTableException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final List<String> mismatches;

  IncompatibleTableException(String table, List<String> mismatches) {
    super(
        "Iceberg table "
            + table
            + " is incompatible with Tally's output table (Tally never alters an existing table): "
            + String.join("; ", mismatches));
    this.mismatches = List.copyOf(mismatches);
  }

  /** Every mismatch found, one sentence each. */
  public List<String> mismatches() {
    return mismatches;
  }
}
