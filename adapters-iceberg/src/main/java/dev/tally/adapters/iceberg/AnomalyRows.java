package dev.tally.adapters.iceberg;

import dev.tally.domain.anomaly.Anomaly;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;

/** One anomaly as an insert into the anomaly table, in the column order of {@link AnomalyTable}. */
final class AnomalyRows implements MapFunction<Anomaly, RowData> {

  private static final long serialVersionUID = 1L;

  @Override
  public RowData map(Anomaly anomaly) {
    GenericRowData row = new GenericRowData(RowKind.INSERT, 9);
    row.setField(0, StringData.fromString(anomaly.transactionId()));
    row.setField(1, StringData.fromString(anomaly.userId()));
    row.setField(2, StringData.fromString(anomaly.currency()));
    row.setField(3, TimestampData.fromEpochMillis(anomaly.eventTimeMillis()));
    row.setField(4, anomaly.amountCents());
    row.setField(5, anomaly.baselineCount());
    row.setField(6, DecimalData.fromBigDecimal(anomaly.baselineMeanCents(), 38, Anomaly.SCALE));
    row.setField(7, DecimalData.fromBigDecimal(anomaly.baselineStddevCents(), 38, Anomaly.SCALE));
    row.setField(8, anomaly.score() == null ? null : anomaly.score().doubleValue());
    return row;
  }
}
