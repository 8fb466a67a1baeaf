package dev.tally.adapters.iceberg;

import dev.tally.domain.spending.WindowedSpending;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;

/**
 * One output row per aggregate, in the column order of {@link SpendingTable#SCHEMA}. Every row is
 * an {@link RowKind#INSERT}: in upsert mode the sink turns it into "delete the key, insert the
 * row".
 */
final class SpendingRowMapper implements MapFunction<WindowedSpending, RowData> {

  private static final long serialVersionUID = 1L;

  @Override
  public RowData map(WindowedSpending spending) {
    GenericRowData row = new GenericRowData(RowKind.INSERT, 6);
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
