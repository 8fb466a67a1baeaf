package dev.tally.adapters.iceberg;

import java.util.Optional;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which job writes the output table: its name ({@code job.name}) in the table property {@value
 * #WRITER_PROPERTY}, set when Tally creates the table or first claims an unowned one, and checked
 * at every start (docs/behaviour.md "Several jobs on one cluster").
 *
 * <p>One writer per table, because two jobs writing one table are not exact: each inserts the first
 * row of a window it has not seen in its own state (a second row for the key when the other job
 * already wrote it), and each one's snapshot expiry keeps only its own restore anchor. A job of
 * another name is refused at start, naming the owner, unless it is told to take the table over
 * ({@link IcebergSinkConfig#TAKE_OVER}): Tally cannot tell from the table whether the owner still
 * runs, so that is the operator's word that it does not.
 */
final class TableOwnership {

  private static final Logger LOG = LoggerFactory.getLogger(TableOwnership.class);

  /** The table property that names the job writing the table. */
  static final String WRITER_PROPERTY = "tally.writer";

  private TableOwnership() {}

  /**
   * Why {@code writer} must not write a table owned by {@code owner}, or empty when it may.
   *
   * @param owner the table's {@value #WRITER_PROPERTY}, {@code null} when unowned
   */
  static Optional<String> refusal(String table, String owner, String writer, boolean takeOver) {
    if (owner == null || owner.equals(writer) || takeOver) {
      return Optional.empty();
    }
    return Optional.of(
        "Iceberg table "
            + table
            + " is written by the job \""
            + owner
            + "\" (table property "
            + WRITER_PROPERTY
            + "), not by this job \""
            + writer
            + "\" (job.name): two jobs writing one table would each insert rows the other already"
            + " wrote and expire each other's restore anchors. Write another table"
            + " (iceberg.namespace, iceberg.table), or stop the job \""
            + owner
            + "\" for good and start this one once with "
            + IcebergSinkConfig.TAKE_OVER.name()
            + "=true");
  }

  /**
   * Claims {@code table} for {@code options.writer()}, or refuses.
   *
   * @throws TableOwnedByAnotherJobException when another job owns it and this one may not take it
   *     over, or another job claimed it at the same moment
   */
  static void claim(Table table, String name, IcebergSinkConfig options) {
    String writer = options.writer();
    String owner = table.properties().get(WRITER_PROPERTY);
    Optional<String> refusal = refusal(name, owner, writer, options.takeOver());
    if (refusal.isPresent()) {
      throw new TableOwnedByAnotherJobException(refusal.get(), owner);
    }
    if (writer.equals(owner)) {
      return;
    }
    table.updateProperties().set(WRITER_PROPERTY, writer).commit();
    table.refresh();
    String claimed = table.properties().get(WRITER_PROPERTY);
    if (!writer.equals(claimed)) {
      throw new TableOwnedByAnotherJobException(
          "Iceberg table "
              + name
              + " was claimed by the job \""
              + claimed
              + "\" while this job \""
              + writer
              + "\" claimed it",
          claimed);
    }
    if (owner == null) {
      LOG.info("Iceberg table {} had no writer; it is now written by the job \"{}\"", name, writer);
    } else {
      LOG.warn(
          "Iceberg table {} taken over from the job \"{}\" by the job \"{}\" ({}=true); unset it"
              + " for the next start",
          name,
          owner,
          writer,
          IcebergSinkConfig.TAKE_OVER.name());
    }
  }
}
