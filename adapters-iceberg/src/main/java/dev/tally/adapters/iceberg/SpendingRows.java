package dev.tally.adapters.iceberg;

import dev.tally.domain.spending.WindowedSpending;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * The change rows of one aggregate, in the column order of {@link SpendingTable#SCHEMA}, for
 * Iceberg's writer with identifier fields and upsert off:
 *
 * <ul>
 *   <li>a plain {@link RowKind#INSERT} when the aggregator says no row of this key was emitted
 *       before ({@link WindowedSpending#firstForKey()}) <em>and</em> the window starts after every
 *       window the table held when the job started ({@code tableWindowStartsUpToMillis}), so not
 *       even another run can have written the key;
 *   <li>otherwise {@link RowKind#UPDATE_BEFORE} then {@link RowKind#UPDATE_AFTER}: the writer
 *       deletes the key (a position delete if it wrote the key since the last checkpoint, else an
 *       equality delete) and inserts the row, i.e. an upsert.
 * </ul>
 *
 * <p>Why not upsert every row: an upsert writes an equality delete per row, and in a bounded or
 * steady run nearly every row is a window's first and only one. Inserting those halves the rows the
 * writers encode and the files a checkpoint commits, and leaves no delete files for readers and
 * compaction to apply. It stays exactly-once because "first" comes from the aggregator's
 * checkpointed state: after a restore the state and the table agree on which windows were emitted
 * (rows emitted after the restored checkpoint were never committed), and windows a previous run
 * without that state may have written are at or before the table's horizon, where every row is an
 * upsert.
 *
 * <p>Only the identifier fields of an {@code UPDATE_BEFORE} row take part in the delete; it carries
 * the new values because the old ones are not kept.
 */
final class SpendingRows implements FlatMapFunction<WindowedSpending, RowData> {

  private static final long serialVersionUID = 1L;

  private final long tableWindowStartsUpToMillis;

  /**
   * @param tableWindowStartsUpToMillis the latest {@code window_start} (epoch millis) the table may
   *     hold rows for, {@link Long#MIN_VALUE} for an empty table, {@link Long#MAX_VALUE} when
   *     unknown (every row is then an upsert)
   */
  SpendingRows(long tableWindowStartsUpToMillis) {
    this.tableWindowStartsUpToMillis = tableWindowStartsUpToMillis;
  }

  @Override
  public void flatMap(WindowedSpending spending, Collector<RowData> out) {
    if (spending.firstForKey() && spending.window().startMillis() > tableWindowStartsUpToMillis) {
      out.collect(row(RowKind.INSERT, spending));
    } else {
      out.collect(row(RowKind.UPDATE_BEFORE, spending));
      out.collect(row(RowKind.UPDATE_AFTER, spending));
    }
  }

  static RowData row(RowKind kind, WindowedSpending spending) {
    GenericRowData row = new GenericRowData(kind, 6);
    row.setField(0, StringData.fromString(spending.key().userId()));
    row.setField(1, StringData.fromString(spending.key().currency()));
    // TimestampData of epoch millis: an instant, as TIMESTAMP_LTZ / timestamptz expect.
    row.setField(2, TimestampData.fromEpochMillis(spending.window().startMillis()));
    row.setField(3, TimestampData.fromEpochMillis(spending.window().endMillis()));
    row.setField(4, spending.aggregate().totalSpentCents());
    row.setField(5, spending.aggregate().transactionCount());
    return row;
  }
}
