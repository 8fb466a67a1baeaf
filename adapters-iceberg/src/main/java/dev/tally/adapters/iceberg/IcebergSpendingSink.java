package dev.tally.adapters.iceberg;

import dev.tally.domain.spending.WindowedSpending;
import dev.tally.ports.out.SpendingSink;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.flink.maintenance.api.DeleteOrphanFilesConfig;
import org.apache.iceberg.flink.maintenance.api.ExpireSnapshotsConfig;
import org.apache.iceberg.flink.maintenance.api.FlinkMaintenanceConfig;
import org.apache.iceberg.flink.maintenance.api.RewriteDataFilesConfig;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SpendingSink} port on Iceberg's {@code IcebergSink} (Flink Sink V2; the legacy {@code
 * FlinkSink} can lose data with unaligned checkpoints): upserts on {@code user_id, currency,
 * window_start}, files committed only when a checkpoint completes, maintenance in the post-commit
 * topology.
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
    if (options.maintenance().enabled()) {
      requireGenericTypesForMaintenance(aggregates); // before any I/O
    }
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
    MaintenanceOptions maintenance = options.maintenance();
    if (maintenance.enabled()) {
      builder.rewriteDataFiles(rewriteSettings(maintenance));
      builder.expireSnapshots(expireSettings(maintenance));
      if (maintenance.deleteOrphanFiles()) {
        builder.deleteOrphanFiles(orphanSettings(maintenance));
      }
      builder.set(
          FlinkMaintenanceConfig.RATE_LIMIT, Long.toString(maintenance.rateLimit().toSeconds()));
      builder.set(
          FlinkMaintenanceConfig.LOCK_CHECK_DELAY,
          Long.toString(maintenance.lockCheckDelay().toSeconds()));
      builder.setAll(maintenance.properties());
    }
    builder.append();
  }

  /**
   * Iceberg 1.11's Flink maintenance operators exchange their own records ({@code TableChange},
   * {@code Trigger}, rewrite groups, exceptions on error side outputs) with Kryo. With {@code
   * pipeline.generic-types: false} Flink refuses to build that graph, with a message that names an
   * Iceberg-internal class; fail earlier and say what to do instead.
   */
  private static void requireGenericTypesForMaintenance(DataStream<?> aggregates) {
    if (aggregates.getExecutionConfig().getSerializerConfig().hasGenericTypesDisabled()) {
      throw new IllegalStateException(
          "Iceberg table maintenance inside the job needs pipeline.generic-types: true: Iceberg"
              + " 1.11's maintenance operators exchange their internal records with Kryo (the"
              + " sink's write path itself does not). Either allow generic types for this job, or"
              + " set maintenance.enabled=false and maintain the table elsewhere.");
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

  static Map<String, String> rewriteSettings(MaintenanceOptions maintenance) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(
        RewriteDataFilesConfig.SCHEDULE_ON_COMMIT_COUNT,
        Integer.toString(maintenance.compactEveryCommits()));
    settings.put(
        RewriteDataFilesConfig.SCHEDULE_ON_INTERVAL_SECOND,
        Long.toString(maintenance.compactInterval().toSeconds()));
    // Passed to Iceberg's bin-pack planner: rewrite every data file with this many deletes.
    settings.put(
        RewriteDataFilesConfig.PREFIX + "delete-file-threshold",
        Integer.toString(maintenance.deleteFileThreshold()));
    return settings;
  }

  static Map<String, String> expireSettings(MaintenanceOptions maintenance) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(
        ExpireSnapshotsConfig.SCHEDULE_ON_COMMIT_COUNT,
        Integer.toString(maintenance.expireEveryCommits()));
    settings.put(
        ExpireSnapshotsConfig.RETAIN_LAST, Integer.toString(maintenance.retainLastSnapshots()));
    settings.put(
        ExpireSnapshotsConfig.MAX_SNAPSHOT_AGE_SECONDS,
        Long.toString(maintenance.maxSnapshotAge().toSeconds()));
    return settings;
  }

  static Map<String, String> orphanSettings(MaintenanceOptions maintenance) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(
        DeleteOrphanFilesConfig.MIN_AGE_SECONDS,
        Long.toString(maintenance.orphanFileMinAge().toSeconds()));
    settings.put(
        DeleteOrphanFilesConfig.SCHEDULE_ON_INTERVAL_SECOND,
        Long.toString(maintenance.orphanFileInterval().toSeconds()));
    return settings;
  }
}
