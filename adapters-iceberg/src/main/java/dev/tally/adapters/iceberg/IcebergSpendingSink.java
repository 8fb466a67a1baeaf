package dev.tally.adapters.iceberg;

import dev.tally.domain.spending.WindowedSpending;
import dev.tally.ports.out.SpendingSink;
import java.time.Instant;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SpendingSink} port on Iceberg's {@code IcebergSink} (Flink Sink V2; the legacy {@code
 * FlinkSink} can lose data with unaligned checkpoints): rows keyed by {@code user_id, currency,
 * window_start}, each a plain insert when it is new and an upsert otherwise ({@link SpendingRows}),
 * files committed only when a checkpoint completes, and Tally's own table maintenance next to it
 * ({@link TableMaintenanceFunction}). With hash distribution, the default, rows reach Iceberg's
 * writers through Tally's own shuffle ({@link TallyIcebergSink}).
 *
 * <p>{@link #attach} first creates or checks the table (see {@link SpendingTableBootstrap}), so a
 * job never starts against a table it cannot write.
 */
final class IcebergSpendingSink implements SpendingSink {

  private static final Logger LOG = LoggerFactory.getLogger(IcebergSpendingSink.class);

  private final IcebergSinkConfig options;

  IcebergSpendingSink(IcebergSinkConfig options) {
    this.options = options;
  }

  @Override
  public void attach(DataStream<WindowedSpending> aggregates) {
    LOG.info("Attaching the Iceberg spending sink with {}", options);
    PreparedTable prepared = prepareTable();
    Table table = prepared.table();
    long writtenUpTo = prepared.writtenUpTo();
    LOG.info(
        "Rows of windows starting after {} are new to {}: a window's first row is inserted, later"
            + " ones replace it",
        describe(writtenUpTo),
        options.tableIdentifier());
    DataStream<RowData> rows =
        aggregates
            .flatMap(new SpendingRows(writtenUpTo), SpendingTable.rowTypeInfo())
            .name("Spending rows: insert or replace")
            .uid(options.uidSuffix() + "-rows");
    IcebergSink.Builder builder =
        IcebergSink.forRowData(rows)
            .tableLoader(IcebergCatalogs.tableLoader(options))
            // Not upsert: SpendingRows says per row whether to insert or to replace the key.
            .upsert(false)
            .equalityFieldColumns(SpendingTable.IDENTIFIER_FIELDS)
            .distributionMode(options.distribution().icebergMode())
            .uidSuffix(options.uidSuffix());
    // Iceberg's committer behind Tally's sink topology (TallyIcebergSink): with hash
    // distribution, Tally's cheaper shuffle (PartitionChannel); in every mode, the checkpoint
    // anchor that keeps a restored job's final commit, and Tally's delta writer while the table
    // is of format version 2. The same uid and name as IcebergSink.Builder#append gives, so state
    // and metrics line up.
    int writers =
        options.writeParallelism() > 0 ? options.writeParallelism() : rows.getParallelism();
    PartitionChannel channel =
        options.distribution() == WriteDistribution.HASH
            ? PartitionChannel.forTable(table, writersMaxParallelism(rows, writers))
            : null;
    rows.sinkTo(
            TallyIcebergSink.wrap(
                builder,
                channel,
                IcebergCatalogs.tableLoader(options),
                SpendingTable.IDENTIFIER_FIELDS))
        .uid(options.uidSuffix())
        .name(options.uidSuffix())
        .setParallelism(writers);
    if (options.maintenance().enabled()) {
      attachMaintenance(aggregates);
    }
  }

  /**
   * The writers' number of key groups, which {@link PartitionChannel} spreads the buckets over: the
   * job's max parallelism, or when it has none the one Flink derives from the writers' parallelism.
   */
  static int writersMaxParallelism(DataStream<?> rows, int writers) {
    int configured = rows.getExecutionEnvironment().getMaxParallelism();
    return configured > 0
        ? configured
        : KeyGroupRangeAssignment.computeDefaultMaxParallelism(writers);
  }

  /**
   * Tally's own maintenance, not Iceberg's {@code TableMaintenance}: see {@link MaintenanceConfig}
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
        .transform(
            "Iceberg table maintenance: " + options.tableIdentifier(),
            Types.VOID,
            new TableMaintenanceFunction.Operator(
                new TableMaintenanceFunction(
                    IcebergCatalogs.tableLoader(options), options.maintenance())))
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
  static String maintenanceUid(IcebergSinkConfig options) {
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

  private static String describe(long windowStartMillis) {
    if (windowStartMillis == Long.MIN_VALUE) {
      return "the start of time (the table is empty)";
    }
    if (windowStartMillis == Long.MAX_VALUE) {
      return "the end of time (the table's files have no window_start bounds: every row replaces)";
    }
    return Instant.ofEpochMilli(windowStartMillis).toString();
  }

  /**
   * The table as the job starts: its metadata (spec, schema) and the latest window start it holds
   * rows for ({@link WrittenWindows}).
   */
  private record PreparedTable(Table table, long writtenUpTo) {}

  /**
   * Creates or checks the table, then reads how far its rows reach, with one catalog connection
   * (closing the catalog closes its file IO, so the files are planned before that).
   */
  private PreparedTable prepareTable() {
    Catalog catalog = IcebergCatalogs.catalogLoader(options).loadCatalog();
    try {
      Table table = SpendingTableBootstrap.ensureTable(catalog, options);
      return new PreparedTable(table, WrittenWindows.latestWindowStartMillis(table));
    } finally {
      IcebergCatalogs.close(catalog);
    }
  }
}
