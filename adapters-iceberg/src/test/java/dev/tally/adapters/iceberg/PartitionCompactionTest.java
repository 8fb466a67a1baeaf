package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.RESTException;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link PartitionCompaction} on a real (local) format-v2 table written the way Iceberg's Flink
 * upsert writer writes it: data files with equality deletes, committed as row deltas.
 */
class PartitionCompactionTest {

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "v", Types.StringType.get())),
          java.util.Set.of(1));

  @RegisterExtension final LocalCatalog local = new LocalCatalog();

  private Table table;
  private int commits;

  @BeforeEach
  void createTable() {
    table =
        local.createTable(
            SCHEMA, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  /** One checkpoint of the streaming upsert writer: data and equality deletes in one row delta. */
  private void upsert(Table target, Object... idsAndValues) {
    RowDataTaskWriterFactory factory =
        new RowDataTaskWriterFactory(
            target,
            FlinkSchemaUtil.convert(target.schema()),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT,
            org.apache.iceberg.FileFormat.PARQUET,
            target.properties(),
            List.of(1),
            true);
    factory.initialize(1, commits++);
    TaskWriter<org.apache.flink.table.data.RowData> writer = factory.create();
    try {
      for (int i = 0; i < idsAndValues.length; i += 2) {
        writer.write(
            GenericRowData.of(
                ((Number) idsAndValues[i]).longValue(),
                StringData.fromString((String) idsAndValues[i + 1])));
      }
      WriteResult result = writer.complete();
      RowDelta delta = target.newRowDelta();
      Arrays.stream(result.dataFiles()).forEach(delta::addRows);
      Arrays.stream(result.deleteFiles()).forEach(delta::addDeletes);
      delta.commit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Map<Long, String> rows() throws IOException {
    table.refresh();
    Map<Long, String> rows = new TreeMap<>();
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        ids.add((Long) record.getField("id"));
        rows.put((Long) record.getField("id"), (String) record.getField("v"));
      }
    }
    assertThat(ids).as("at most one row per key").doesNotHaveDuplicates();
    return rows;
  }

  private List<String> liveDataFiles() throws IOException {
    table.refresh();
    List<String> paths = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> paths.add(task.file().location()));
    }
    return paths;
  }

  @Test
  void compactionKeepsTheContentAndDropsTheAppliedDeletes() throws IOException {
    upsert(table, 1, "a", 2, "b");
    upsert(table, 1, "c");
    // A key upserted twice within one checkpoint: the writer deletes the first row by position.
    upsert(table, 2, "d", 3, "e", 3, "f");
    table.refresh();
    assertThat(table.currentSnapshot().summary()).containsEntry("total-position-deletes", "1");

    PartitionCompaction.Result result = new PartitionCompaction(2, 1).run(table, () -> false);

    assertThat(result.dataFilesRemoved()).isEqualTo(3);
    assertThat(rows()).containsExactlyEntriesOf(new TreeMap<>(Map.of(1L, "c", 2L, "d", 3L, "f")));
    assertThat(table.currentSnapshot().summary()).containsEntry("total-delete-files", "0");
  }

  @Test
  void anUpsertCommittedWhileTheCompactionRunsStillAppliesToTheRewrittenRows() throws IOException {
    upsert(table, 1, "a", 2, "b");
    upsert(table, 1, "c");
    // The streaming writer commits right before the compaction's first commit attempt, with an
    // equality delete and a position delete (key 3 twice in one checkpoint): the compaction's
    // commit then fails against the new metadata, and Iceberg retries it on top, validating that
    // no new position delete names a replaced file.
    FlakyOperations ops =
        new FlakyOperations(
            ((HasTableOperations) table).operations(), () -> upsert(table, 2, "x", 3, "y", 3, "z"));
    Table compacting = new BaseTable(ops, table.name());

    new PartitionCompaction(2, 1).run(compacting, () -> false);

    assertThat(rows()).containsExactlyEntriesOf(new TreeMap<>(Map.of(1L, "c", 2L, "x", 3L, "z")));
  }

  @Test
  void aCommitWhoseResponseIsLostKeepsTheFilesItMayHaveCommitted() throws IOException {
    upsert(table, 1, "a", 2, "b");
    upsert(table, 1, "c");
    // A REST catalog applied the commit, but the response never arrived: the outcome is unknown
    // to the client, and Iceberg does not mark such a failure as cleanable.
    FlakyOperations ops = new FlakyOperations(((HasTableOperations) table).operations(), null);
    ops.failAfterCommit = true;
    Table compacting = new BaseTable(ops, table.name());

    assertThatThrownBy(() -> new PartitionCompaction(2, 1).run(compacting, () -> false))
        .isInstanceOf(RESTException.class);

    table.refresh();
    assertThat(table.currentSnapshot().summary())
        .containsEntry(PartitionCompaction.SUMMARY_KEY, "compaction");
    for (String path : liveDataFiles()) {
      assertThat(table.io().newInputFile(path).exists())
          .as("%s is referenced by the committed compaction", path)
          .isTrue();
    }
    assertThat(rows()).containsExactlyEntriesOf(new TreeMap<>(Map.of(1L, "c", 2L, "b")));
  }

  /** Delegates to a table's operations, with a hook before and a failure after a commit. */
  private static final class FlakyOperations implements TableOperations {
    private final TableOperations delegate;
    private Runnable beforeFirstCommit;
    private boolean failAfterCommit;

    FlakyOperations(TableOperations delegate, Runnable beforeFirstCommit) {
      this.delegate = delegate;
      this.beforeFirstCommit = beforeFirstCommit;
    }

    @Override
    public TableMetadata current() {
      return delegate.current();
    }

    @Override
    public TableMetadata refresh() {
      return delegate.refresh();
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      if (beforeFirstCommit != null) {
        Runnable hook = beforeFirstCommit;
        beforeFirstCommit = null;
        hook.run();
      }
      delegate.commit(base, metadata);
      if (failAfterCommit) {
        failAfterCommit = false;
        throw new RESTException("Error occurred while processing POST request");
      }
    }

    @Override
    public FileIO io() {
      return delegate.io();
    }

    @Override
    public EncryptionManager encryption() {
      return delegate.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName) {
      return delegate.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
      return delegate.locationProvider();
    }

    @Override
    public long newSnapshotId() {
      return delegate.newSnapshotId();
    }
  }
}
