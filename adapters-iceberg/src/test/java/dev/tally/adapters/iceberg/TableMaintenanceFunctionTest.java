package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.spending.WindowedSpending;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link TableMaintenanceFunction} in Flink's operator harness on a real (local) table: closing on
 * a cancel stops a compaction in flight instead of waiting for it, closing at the end of input lets
 * it finish.
 */
class TableMaintenanceFunctionTest {

  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  /** Compact after every checkpoint once a partition has two data files; never expire. */
  private static final MaintenanceConfig COMPACT_ALWAYS =
      new MaintenanceConfig(true, 1, Duration.ofHours(1), 2, 1, 1_000_000, 50, Duration.ofDays(1));

  @RegisterExtension final LocalCatalog local = new LocalCatalog();

  private Table table;
  private BlockingOperations blocking;
  private OneInputStreamOperatorTestHarness<WindowedSpending, Void> harness;
  private int appends;

  @BeforeEach
  void createTable() throws Exception {
    table =
        local.createTable(
            SCHEMA, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    append(1, 2);
    append(3);
    append(4, 5);
    blocking = new BlockingOperations(((HasTableOperations) table).operations());
    TableMaintenanceFunction function =
        new TableMaintenanceFunction(
            new FixedTableLoader(new BaseTable(blocking, table.name())), COMPACT_ALWAYS);
    harness =
        new OneInputStreamOperatorTestHarness<>(new TableMaintenanceFunction.Operator(function));
    harness.open();
  }

  @AfterEach
  void releaseTheRun() {
    blocking.release.countDown();
  }

  @Test
  void closingOnACancelStopsTheRunInFlightAndLeavesTheTableAsItWas() throws Exception {
    long before = compactionBlockedInARead(blocking::arm);

    // A cancel closes the operator without finishing it. The run blocks until the latch opens,
    // which only happens after the test: closing must return on its own.
    CompletableFuture<Void> closing =
        CompletableFuture.runAsync(
            () -> {
              try {
                harness.getOperator().close();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    closing.get(2, TimeUnit.MINUTES);

    assertThat(blocking.release.getCount()).as("the run was never let go").isEqualTo(1);
    assertTableAsItWas(before);
  }

  @Test
  void aCancelledRunCommitsNothingEvenWhenALibraryClearsTheInterrupt() throws Exception {
    long before = compactionBlockedInARead(blocking::armSwallowingTheInterrupt);

    // The read returns normally after the interrupt, its status cleared, as a library that
    // retries on an interrupt would: the run goes on unless it asks the task's own flag.
    harness.getOperator().close();
    awaitMaintenanceThreads();

    assertThat(blocking.swallowed.getCount()).as("the interrupt was swallowed").isZero();
    assertTableAsItWas(before);
  }

  @Test
  void closingAtTheEndOfInputLetsTheRunInFlightCommit() throws Exception {
    long before = currentSnapshotId();
    harness.notifyOfCompletedCheckpoint(1);

    harness.close(); // finish, then close: the end of input

    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isNotEqualTo(before);
    assertThat(table.currentSnapshot().summary())
        .containsEntry(PartitionCompaction.SUMMARY_KEY, "compaction");
    assertThat(ids()).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
  }

  /**
   * Arms the file IO with {@code arm}, starts a compaction and waits until it blocks reading a data
   * file.
   *
   * @return the table's current snapshot before the run
   */
  private long compactionBlockedInARead(Runnable arm) throws Exception {
    long before = currentSnapshotId();
    arm.run();
    harness.notifyOfCompletedCheckpoint(1);
    assertThat(blocking.reading.await(1, TimeUnit.MINUTES))
        .as("the compaction reads a data file")
        .isTrue();
    return before;
  }

  /** The cancelled compaction committed nothing: the snapshot and the rows are as they were. */
  private void assertTableAsItWas(long snapshotBefore) throws IOException {
    assertThat(currentSnapshotId())
        .as("the cancelled compaction committed nothing")
        .isEqualTo(snapshotBefore);
    assertThat(ids()).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
  }

  /** Waits until every maintenance worker thread has ended, whatever its run did. */
  private static void awaitMaintenanceThreads() throws InterruptedException {
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.getName().equals("tally-iceberg-maintenance")) {
        thread.join(TimeUnit.MINUTES.toMillis(1));
        assertThat(thread.isAlive()).as("the maintenance worker ended").isFalse();
      }
    }
  }

  private long currentSnapshotId() {
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }

  private List<Long> ids() throws IOException {
    table.refresh();
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(record -> ids.add((Long) record.getField("id")));
    }
    return ids;
  }

  /** One data file with the given ids, appended in a commit of its own. */
  private void append(long... ids) throws IOException {
    RowDataTaskWriterFactory factory =
        new RowDataTaskWriterFactory(
            table,
            FlinkSchemaUtil.convert(table.schema()),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT,
            FileFormat.PARQUET,
            table.properties(),
            null,
            false);
    factory.initialize(1, appends++);
    TaskWriter<RowData> writer = factory.create();
    for (long id : ids) {
      writer.write(GenericRowData.of(id));
    }
    AppendFiles append = table.newAppend();
    Arrays.stream(writer.dataFiles()).forEach(append::appendFile);
    append.commit();
  }

  /** Hands out the one table it was given. */
  private static final class FixedTableLoader implements TableLoader {
    private static final long serialVersionUID = 1L;
    private final transient Table table;
    private boolean open;

    FixedTableLoader(Table table) {
      this.table = table;
    }

    @Override
    public void open() {
      open = true;
    }

    @Override
    public boolean isOpen() {
      return open;
    }

    @Override
    public Table loadTable() {
      return table;
    }

    @Override
    public TableLoader clone() {
      return new FixedTableLoader(table);
    }

    @Override
    public void close() {
      open = false;
    }
  }

  /**
   * The table's operations, whose file IO, once armed, blocks every read of a data file until
   * {@link #release} opens; an interrupt ends the wait as a failed read, or, armed to swallow it,
   * as a read that succeeds with the interrupt status cleared (and no further read blocks).
   */
  private static final class BlockingOperations implements TableOperations {
    private final TableOperations delegate;
    private final CountDownLatch reading = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch swallowed = new CountDownLatch(1);
    private volatile boolean armed;
    private volatile boolean swallowInterrupt;
    private final FileIO io;

    BlockingOperations(TableOperations delegate) {
      this.delegate = delegate;
      FileIO files = delegate.io();
      this.io =
          new FileIO() {
            @Override
            public InputFile newInputFile(String path) {
              if (armed && !path.contains("/metadata/")) {
                reading.countDown();
                try {
                  release.await();
                } catch (InterruptedException e) {
                  if (swallowInterrupt) {
                    armed = false;
                    swallowed.countDown();
                    return files.newInputFile(path);
                  }
                  Thread.currentThread().interrupt();
                  throw new UncheckedIOException(new InterruptedIOException(path));
                }
              }
              return files.newInputFile(path);
            }

            @Override
            public OutputFile newOutputFile(String path) {
              return files.newOutputFile(path);
            }

            @Override
            public void deleteFile(String path) {
              files.deleteFile(path);
            }
          };
    }

    void arm() {
      armed = true;
    }

    void armSwallowingTheInterrupt() {
      swallowInterrupt = true;
      armed = true;
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
      delegate.commit(base, metadata);
    }

    @Override
    public FileIO io() {
      return io;
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
