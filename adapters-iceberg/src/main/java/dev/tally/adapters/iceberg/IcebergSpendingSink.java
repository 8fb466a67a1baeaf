package dev.tally.adapters.iceberg;

import dev.tally.domain.spending.WindowedSpending;
import dev.tally.ports.out.SpendingSink;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SpendingSink} port on Iceberg's {@code IcebergSink} (Flink Sink V2; the legacy {@code
 * FlinkSink} can lose data with unaligned checkpoints): upserts on {@code user_id, currency,
 * window_start}, files committed only when a checkpoint completes, and Tally's own table
 * maintenance next to it ({@link TableMaintenanceFunction}).
 *
 * <p>{@link #attach} first creates or checks the table (see {@link SpendingTableBootstrap}), so a
 * job never starts against a table it cannot write.
 */
final class IcebergSpendingSink implements SpendingSink {

  private static final Logger LOG = LoggerFactory.getLogger(IcebergSpendingSink.class);

  private final IcebergSinkOptions options;

  IcebergSpendingSink(IcebergSinkOptions options) {
    this.options = options;
  }

  @Override
  public void attach(DataStream<WindowedSpending> aggregates) {
    LOG.info("Attaching the Iceberg spending sink with {}", options);
    bootstrapTable();
    IcebergSink.Builder builder =
        IcebergSink.builderFor(aggregates, new SpendingRowMapper(), SpendingTable.rowTypeInfo())
            .tableLoader(IcebergCatalogs.tableLoader(options))
            .upsert(true)
            .equalityFieldColumns(SpendingTable.IDENTIFIER_FIELDS)
            .distributionMode(options.distribution().icebergMode())
            .uidSuffix(options.uidSuffix());
    if (options.writeParallelism() > 0) {
      builder.writeParallelism(options.writeParallelism());
    }
    builder.append();
    if (options.maintenance().enabled()) {
      attachMaintenance(aggregates);
    }
  }

  /**
   * Tally's own maintenance, not Iceberg's {@code TableMaintenance}: see {@link MaintenanceOptions}
   * for why. It only needs to hear about completed checkpoints, so its input is the aggregate
   * stream filtered empty right where it is produced (chained: no record crosses the network).
   */
  private void attachMaintenance(DataStream<WindowedSpending> aggregates) {
    String uid = maintenanceUid(options);
    aggregates
        .filter(new NoRecords())
        .setParallelism(aggregates.getParallelism())
        .name("Iceberg maintenance trigger")
        .uid(uid + "-trigger")
        .process(
            new TableMaintenanceFunction(
                IcebergCatalogs.tableLoader(options), options.maintenance()),
            Types.VOID)
        .name("Iceberg table maintenance: " + options.tableIdentifier())
        .uid(uid)
        .setParallelism(1)
        .setMaxParallelism(1)
        // Never chained: at job parallelism 1 it would join the aggregator's chain and take that
        // vertex's max parallelism (job.max-parallelism), so a savepoint taken at another
        // parallelism would no longer restore ("Max parallelism mismatch", found by
        // ExactlyOnceIT's rescale 3 -> 1).
        .disableChaining();
  }

  /** The stable uid of the maintenance operator, derived from the sink's uid suffix. */
  static String maintenanceUid(IcebergSinkOptions options) {
    return options.uidSuffix() + "-maintenance";
  }

  /** Lets nothing through: the maintenance operator's input carries checkpoints only. */
  static final class NoRecords implements FilterFunction<WindowedSpending> {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean filter(WindowedSpending value) {
      return false;
    }
  }

  private void bootstrapTable() {
    Catalog catalog = IcebergCatalogs.catalogLoader(options).loadCatalog();
    try {
      SpendingTableBootstrap.ensureTable(catalog, options);
    } finally {
      if (catalog instanceof Closeable closeable) {
        try {
          closeable.close();
        } catch (IOException e) {
          throw new UncheckedIOException("closing the Iceberg catalog", e);
        }
      }
    }
  }
}
