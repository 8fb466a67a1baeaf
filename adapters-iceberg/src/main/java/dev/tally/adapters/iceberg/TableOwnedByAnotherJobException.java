package dev.tally.adapters.iceberg;

/** The output table is written by another job ({@link TableOwnership}); the job does not start. */
public final class TableOwnedByAnotherJobException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final String owner;

  TableOwnedByAnotherJobException(String message, String owner) {
    super(message);
    this.owner = owner;
  }

  /** The {@code job.name} of the job that owns the table. */
  public String owner() {
    return owner;
  }
}
