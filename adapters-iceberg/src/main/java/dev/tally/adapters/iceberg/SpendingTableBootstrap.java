package dev.tally.adapters.iceberg;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the namespace and the output table when absent, and otherwise checks that the existing
 * table is compatible; then checks that this job may write it ({@link TableOwnership}). Alters an
 * existing table only to record its writer and, for the spending table, to make every checkpoint
 * commit ({@link CommitEveryCheckpoint}).
 *
 * <p>Runs when the sink is attached, i.e. while the job graph is built on the client, before
 * anything is submitted: a misconfigured table fails the start with every mismatch named, not a
 * task hours later. Creating is idempotent and tolerates a concurrent creator (it then checks what
 * the other one created).
 */
final class SpendingTableBootstrap {

  private static final Logger LOG = LoggerFactory.getLogger(SpendingTableBootstrap.class);

  private SpendingTableBootstrap() {}

  /**
   * @return the table, created or verified, and owned by this job
   * @throws IncompatibleTableException naming every mismatch of an existing table
   * @throws TableOwnedByAnotherJobException when another job writes the table
   */
  static Table ensureTable(Catalog catalog, IcebergSinkConfig options) {
    Table table =
        ensureTable(
            catalog,
            options,
            SpendingTable.SCHEMA,
            SpendingTable.partitionSpec(SpendingTable.SCHEMA, options.userIdBuckets()),
            SpendingTable.tableProperties(options.targetFileSizeBytes()),
            TableCompatibility::mismatches);
    // Only once the table is this job's: a table another job writes is never altered.
    CommitEveryCheckpoint.require(table, options.tableIdentifier().toString());
    return table;
  }

  /**
   * The same for any of the job's tables: created with {@code schema}, {@code spec} and {@code
   * properties} when absent, checked by {@code compatibility} when present.
   */
  static Table ensureTable(
      Catalog catalog,
      IcebergSinkConfig options,
      Schema schema,
      PartitionSpec spec,
      Map<String, String> properties,
      Function<Table, List<String>> compatibility) {
    TableIdentifier id = options.tableIdentifier();
    if (catalog instanceof SupportsNamespaces namespaces) {
      ensureNamespace(namespaces, id.namespace());
    }
    Table table;
    if (catalog.tableExists(id)) {
      table = catalog.loadTable(id);
      LOG.info("Iceberg table {} exists; checking it is compatible", id);
    } else {
      try {
        table =
            catalog
                .buildTable(id, schema)
                .withPartitionSpec(spec)
                .withProperties(properties)
                .withProperty(TableOwnership.WRITER_PROPERTY, options.writer())
                .create();
        LOG.info("Created Iceberg table {} at {}", id, table.location());
      } catch (AlreadyExistsException e) {
        table = catalog.loadTable(id);
        LOG.info("Iceberg table {} was created concurrently; checking it is compatible", id);
      }
    }
    List<String> mismatches = compatibility.apply(table);
    if (!mismatches.isEmpty()) {
      throw new IncompatibleTableException(id.toString(), mismatches);
    }
    TableOwnership.claim(table, id.toString(), options);
    return table;
  }

  private static void ensureNamespace(SupportsNamespaces catalog, Namespace namespace) {
    String[] levels = namespace.levels();
    for (int depth = 1; depth <= levels.length; depth++) {
      Namespace prefix = Namespace.of(Arrays.copyOf(levels, depth));
      if (!catalog.namespaceExists(prefix)) {
        try {
          catalog.createNamespace(prefix);
          LOG.info("Created Iceberg namespace {}", prefix);
        } catch (AlreadyExistsException e) {
          // Another job created it between our check and our create: that is what we wanted.
        }
      }
    }
  }
}
