package dev.tally.adapters.iceberg;

import dev.tally.domain.anomaly.Anomaly;
import dev.tally.ports.out.AnomalySink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.flink.sink.IcebergSink;

/**
 * The {@link AnomalySink} port on the anomaly table ({@link AnomalyTable}), with the spending
 * sink's catalog, storage and writer: created or checked when attached ({@link
 * SpendingTableBootstrap}), written through the same Iceberg sink topology ({@link
 * TallyIcebergSink}), so rows are committed exactly once, on completed checkpoints.
 */
final class IcebergAnomalySink implements AnomalySink {

  /** The stable uid suffix of the anomaly table's sink operators. */
  static final String UID_SUFFIX = "tally-iceberg-anomaly-sink";

  private final IcebergSinkConfig options;

  /**
   * @param spending the spending sink's configuration, whose catalog, storage and writer it shares
   * @param namespace the anomaly table's namespace
   * @param table the anomaly table's name
   */
  IcebergAnomalySink(IcebergSinkConfig spending, String namespace, String table) {
    this.options = spending.forTable(namespace, table, UID_SUFFIX);
  }

  @Override
  public void attach(DataStream<Anomaly> anomalies) {
    prepareTable();
    DataStream<RowData> rows =
        anomalies
            .map(new AnomalyRows(), AnomalyTable.rowTypeInfo())
            .name("Anomaly rows")
            .uid(UID_SUFFIX + "-rows");
    IcebergSink.Builder builder =
        IcebergSink.forRowData(rows)
            .tableLoader(IcebergCatalogs.tableLoader(options))
            .upsert(false)
            .equalityFieldColumns(AnomalyTable.IDENTIFIER_FIELDS)
            .distributionMode(WriteDistribution.NONE.icebergMode())
            .uidSuffix(UID_SUFFIX);
    rows.sinkTo(
            TallyIcebergSink.wrap(
                builder,
                null,
                IcebergCatalogs.tableLoader(options),
                AnomalyTable.IDENTIFIER_FIELDS))
        .uid(UID_SUFFIX)
        .name(UID_SUFFIX);
  }

  private void prepareTable() {
    Catalog catalog = IcebergCatalogs.catalogLoader(options).loadCatalog();
    try {
      SpendingTableBootstrap.ensureTable(
          catalog,
          options,
          AnomalyTable.SCHEMA,
          AnomalyTable.SPEC,
          AnomalyTable.tableProperties(),
          TableCompatibility::anomalyTableMismatches);
    } finally {
      IcebergCatalogs.close(catalog);
    }
  }
}
