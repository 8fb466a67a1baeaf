package dev.tally.adapters.iceberg;

import dev.tally.adapters.iceberg.CompactionPlanner.DataFileInfo;
import dev.tally.adapters.iceberg.CompactionPlanner.DeleteFileInfo;
import dev.tally.adapters.iceberg.CompactionPlanner.Plan;
import dev.tally.adapters.iceberg.CompactionPlanner.Scope;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.BaseCombinedScanTask;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.CleanableFailure;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.flink.source.DataIterator;
import org.apache.iceberg.flink.source.RowDataFileScanTaskReader;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One compaction of a table in one Iceberg commit: partitions chosen by {@link CompactionPlanner}
 * are read with their deletes applied and written anew, and the old data files and every delete
 * file that then applies to nothing are removed.
 *
 * <p>Safe next to the streaming writer: the commit is a {@code RewriteFiles} validated from the
 * snapshot the plan was made on, and the new data files take that snapshot's data sequence number.
 * The writer only ever adds files (its position deletes name only files of the same commit), so its
 * concurrent equality deletes carry higher sequence numbers and keep applying to the rewritten
 * rows; Iceberg then skips the equality-delete conflict check for exactly this reason. If anything
 * else removed a file the rewrite replaces, the commit fails and the next run plans again.
 */
final class PartitionCompaction {

  private static final Logger LOG = LoggerFactory.getLogger(PartitionCompaction.class);

  /** Snapshot summary key marking Tally's maintenance commits, for whoever reads the history. */
  static final String SUMMARY_KEY = "tally.maintenance";

  /** Fresh commit operations tried before a run gives up (each retries a few times itself). */
  private static final int COMMIT_ATTEMPTS = 10;

  private final int dataFileThreshold;
  private final int deleteFileThreshold;
  private int runs;

  PartitionCompaction(int dataFileThreshold, int deleteFileThreshold) {
    this.dataFileThreshold = dataFileThreshold;
    this.deleteFileThreshold = deleteFileThreshold;
  }

  /** What one run did. */
  record Result(int partitions, int dataFilesRemoved, int dataFilesAdded, int deleteFilesRemoved) {
    static final Result NOTHING = new Result(0, 0, 0, 0);
  }

  /**
   * Plans and commits one compaction of the table's current snapshot, unless it is stopped first.
   *
   * @param stopped whether the run must stop (its task is cancelled): asked, with the thread's
   *     interrupt status, while planning, between two rows and before each commit attempt, so that
   *     a library on the way that clears the interrupt status cannot make a cancelled run go on to
   *     commit. A stopped run throws {@link InterruptedIOException} and commits nothing.
   */
  Result run(Table table, BooleanSupplier stopped) throws IOException {
    long started = System.nanoTime();
    table.refresh();
    Snapshot start = table.currentSnapshot();
    if (start == null) {
      return Result.NOTHING;
    }
    Map<String, DataFile> dataFiles = new HashMap<>();
    Map<String, List<FileScanTask>> tasksByPath = new HashMap<>();
    List<DataFileInfo> data = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(start.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        stopIf(stopped, table);
        DataFile file = task.file();
        String path = file.location();
        if (dataFiles.putIfAbsent(path, file) == null) {
          data.add(new DataFileInfo(path, scope(table, file), file.dataSequenceNumber()));
        }
        tasksByPath.computeIfAbsent(path, p -> new ArrayList<>()).add(task);
      }
    }
    Map<String, DeleteFile> deleteFiles = new HashMap<>();
    List<DeleteFileInfo> deletes = new ArrayList<>();
    for (ManifestFile manifest : start.deleteManifests(table.io())) {
      stopIf(stopped, table);
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (DeleteFile file : reader) { // live entries, copied
          deleteFiles.put(file.location(), file);
          deletes.add(
              new DeleteFileInfo(
                  file.location(),
                  scope(table, file),
                  file.dataSequenceNumber(),
                  file.content() == FileContent.EQUALITY_DELETES));
        }
      }
    }

    long startSequence = start.sequenceNumber();
    Plan plan =
        CompactionPlanner.plan(
            data,
            deletes,
            startSequence,
            table.spec().specId(),
            dataFileThreshold,
            deleteFileThreshold);
    if (plan.isEmpty()) {
      return Result.NOTHING;
    }

    List<List<FileScanTask>> toRead = new ArrayList<>();
    List<DataFile> toRemove = new ArrayList<>();
    for (List<DataFileInfo> partition : plan.partitions().values()) {
      List<FileScanTask> tasks = new ArrayList<>();
      for (DataFileInfo file : partition) {
        tasks.addAll(tasksByPath.get(file.path()));
        toRemove.add(dataFiles.get(file.path()));
      }
      if (!tasks.isEmpty()) {
        toRead.add(tasks);
      }
    }
    long planned = System.nanoTime();
    List<DataFile> written = toRead.isEmpty() ? List.of() : rewrite(table, toRead, stopped);
    long rewritten = System.nanoTime();

    try {
      commit(table, start, toRemove, written, plan, deleteFiles, stopped);
    } catch (InterruptedIOException e) {
      deleteQuietly(table, written); // stopped before a commit was attempted
      throw e;
    } catch (RuntimeException e) {
      // Only a failure Iceberg marks as clean (a lost race, a failed validation) proves that the
      // commit did not happen. Anything else, e.g. a REST call whose response was lost or timed
      // out, may have committed a snapshot that references the new files: deleting them would
      // corrupt the table, and the replaced files go with the next expiry. Iceberg itself keeps
      // its manifests then (SnapshotProducer with strict cleanup), and so does this: orphans at
      // worst.
      if (e instanceof CleanableFailure && !(e instanceof CommitStateUnknownException)) {
        deleteQuietly(table, written);
      }
      throw e;
    }
    Result result =
        new Result(
            plan.partitions().size(),
            toRemove.size(),
            written.size(),
            plan.danglingDeletes().size());
    LOG.info(
        "Compacted {} from snapshot {}: {} partitions, {} data files replaced by {}, {} delete"
            + " files removed (plan {} ms, rewrite {} ms, commit {} ms)",
        table.name(),
        start.snapshotId(),
        result.partitions(),
        result.dataFilesRemoved(),
        result.dataFilesAdded(),
        result.deleteFilesRemoved(),
        (planned - started) / 1_000_000,
        (rewritten - planned) / 1_000_000,
        (System.nanoTime() - rewritten) / 1_000_000);
    return result;
  }

  /**
   * Commits the rewrite, starting over with a fresh operation when another writer won the race.
   * Iceberg retries a conflicting commit a few times itself; the streaming writer commits at every
   * checkpoint, so on a slow catalog those few can all lose, while each new attempt here is as
   * valid as the first: it is validated from the same starting snapshot. A stopped run attempts no
   * further commit; one that lost a race committed nothing, so its files may go.
   *
   * @throws InterruptedIOException when the run was stopped before an attempt
   */
  private static void commit(
      Table table,
      Snapshot start,
      List<DataFile> toRemove,
      List<DataFile> written,
      Plan plan,
      Map<String, DeleteFile> deleteFiles,
      BooleanSupplier stopped)
      throws InterruptedIOException {
    for (int attempt = 1; ; attempt++) {
      stopIf(stopped, table);
      RewriteFiles rewrite =
          table
              .newRewrite()
              .validateFromSnapshot(start.snapshotId())
              .dataSequenceNumber(start.sequenceNumber())
              .set(SUMMARY_KEY, "compaction");
      toRemove.forEach(rewrite::deleteFile);
      written.forEach(rewrite::addFile);
      plan.danglingDeletes().forEach(path -> rewrite.deleteFile(deleteFiles.get(path)));
      try {
        rewrite.commit();
        return;
      } catch (CommitFailedException e) {
        if (attempt >= COMMIT_ATTEMPTS) {
          throw e;
        }
        LOG.info("Compaction commit of {} lost a race (attempt {}), again", table.name(), attempt);
        try {
          Thread.sleep(ThreadLocalRandom.current().nextLong(50, 500));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
        table.refresh();
      }
    }
  }

  private static Scope scope(Table table, ContentFile<?> file) {
    PartitionSpec spec = table.specs().get(file.specId());
    return new Scope(file.specId(), spec.partitionToPath(file.partition()), spec.isUnpartitioned());
  }

  /**
   * Reads the tasks, partition by partition, with their deletes applied and writes the rows with
   * the current spec; stops between two rows once the run is stopped (the task is cancelled),
   * deleting what it wrote.
   */
  private List<DataFile> rewrite(
      Table table, List<List<FileScanTask>> partitions, BooleanSupplier stopped)
      throws IOException {
    FileFormat format =
        FileFormat.fromString(
            PropertyUtil.propertyAsString(
                table.properties(),
                TableProperties.DEFAULT_FILE_FORMAT,
                TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
    long targetFileSize =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    RowDataTaskWriterFactory factory =
        new RowDataTaskWriterFactory(
            table,
            FlinkSchemaUtil.convert(table.schema()),
            targetFileSize,
            format,
            table.properties(),
            null,
            false);
    // File names carry a random operation id, so the task and attempt ids only need to differ
    // between runs of this instance.
    factory.initialize(0, runs++);
    RowDataFileScanTaskReader reader =
        new RowDataFileScanTaskReader(
            table.schema(),
            table.schema(),
            table.properties().get(TableProperties.DEFAULT_NAME_MAPPING),
            true,
            List.of());
    TaskWriter<RowData> writer = factory.create();
    try {
      for (List<FileScanTask> tasks : partitions) {
        try (DataIterator<RowData> rows =
            new DataIterator<>(
                reader, new BaseCombinedScanTask(tasks), table.io(), table.encryption())) {
          while (rows.hasNext()) {
            stopIf(stopped, table);
            writer.write(rows.next());
          }
        }
      }
      return List.of(writer.dataFiles());
    } catch (IOException | RuntimeException e) {
      try {
        writer.abort();
      } catch (IOException abortFailure) {
        e.addSuppressed(abortFailure);
      }
      throw e;
    } finally {
      writer.close();
    }
  }

  /**
   * Throws if the run is stopped: asked of {@code stopped} and of the thread's interrupt status.
   */
  private static void stopIf(BooleanSupplier stopped, Table table) throws InterruptedIOException {
    if (stopped.getAsBoolean() || Thread.currentThread().isInterrupted()) {
      throw new InterruptedIOException("compaction of " + table.name() + " stopped");
    }
  }

  private static void deleteQuietly(Table table, List<DataFile> files) {
    for (DataFile file : files) {
      try {
        table.io().deleteFile(file.location());
      } catch (RuntimeException e) {
        LOG.warn("Could not delete {} after a failed compaction commit", file.location(), e);
      }
    }
  }
}
