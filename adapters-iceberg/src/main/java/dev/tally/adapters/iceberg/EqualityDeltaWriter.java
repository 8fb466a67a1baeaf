package dev.tally.adapters.iceberg;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.deletes.DeleteGranularity;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.SortingPositionOnlyDeleteWriter;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.io.RollingEqualityDeleteWriter;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.StructLikeMap;
import org.apache.iceberg.util.StructLikeUtil;
import org.apache.iceberg.util.StructProjection;

/**
 * The rows of one writer subtask between two checkpoints, with identifier fields and upsert off, as
 * Iceberg's Flink delta writer writes them, except that a partition's equality-delete file is
 * opened only when a row of it needs one.
 *
 * <p>Why: Iceberg's writer opens a data file <em>and</em> an equality-delete file for every
 * partition it sees in a checkpoint, and at the barrier closes the delete file, uploads it and
 * deletes it again when it is empty, which it is for every partition whose rows are all inserts
 * ({@link SpendingRows}): in a bounded or steady run nearly all. Each opened Parquet file costs a
 * fresh Hadoop {@code Configuration} that parses Hadoop's default resources (Iceberg's Parquet
 * builder does so for every file not on a Hadoop file system), and each empty one a PUT and a
 * DELETE at the barrier (docs/benchmarks.md, "What limits Tally's throughput").
 *
 * <p>What is written is what Iceberg's writer writes: per row kind, {@code INSERT} and {@code
 * UPDATE_AFTER} append the row and remember its position under its key; {@code UPDATE_BEFORE} and
 * {@code DELETE} delete the key, with a position delete (file granularity) when this writer wrote
 * the key since the last checkpoint, else with an equality delete of the row. An insert of a key
 * this writer already wrote in the same checkpoint position-deletes the earlier row. Tables of
 * format version 2 only: version 3 needs deletion vectors, for which the sink keeps Iceberg's own
 * writer ({@link TallyIcebergSink}).
 */
final class EqualityDeltaWriter implements TaskWriter<RowData> {

  /**
   * The most partitions closed at once: the store's latency is then paid partitions / 16 times. A
   * checkpoint of more partitions than that is one of a large backlog or of many windows, where
   * more concurrent uploads would mostly add memory (each encodes its file as it closes it).
   */
  static final int MAX_CONCURRENT_CLOSES = 16;

  private final PartitionSpec spec;
  private final FileWriterFactory<RowData> files;
  private final OutputFileFactory fileFactory;
  private final FileIO io;
  private final long targetFileSize;
  private final Schema deleteSchema;
  private final RowDataWrapper wrapper;
  private final StructProjection keyProjection;
  private final PartitionKey partitionKey;
  private final RowPartitioner partitioner;
  private final Map<StructLike, PartitionDelta> partitions = new HashMap<>();
  private final List<DataFile> dataFiles = new ArrayList<>();
  private final List<DeleteFile> deleteFiles = new ArrayList<>();
  private final List<CharSequence> referencedDataFiles = new ArrayList<>();
  private boolean closed;

  /**
   * @param files writes the files; for equality deletes of the full row, as with upsert off
   * @param equalityFieldIds the identifier fields that key a row
   */
  EqualityDeltaWriter(
      PartitionSpec spec,
      Schema schema,
      RowType rowType,
      Set<Integer> equalityFieldIds,
      FileWriterFactory<RowData> files,
      OutputFileFactory fileFactory,
      FileIO io,
      long targetFileSize) {
    this.spec = spec;
    this.files = files;
    this.fileFactory = fileFactory;
    this.io = io;
    this.targetFileSize = targetFileSize;
    this.deleteSchema = TypeUtil.select(schema, equalityFieldIds);
    this.wrapper = new RowDataWrapper(rowType, schema.asStruct());
    this.keyProjection = StructProjection.create(schema, deleteSchema);
    this.partitionKey = new PartitionKey(spec, schema);
    this.partitioner = new RowPartitioner(spec, schema, rowType);
  }

  @Override
  public void write(RowData row) throws IOException {
    partitioner.partition(row, partitionKey);
    PartitionDelta partition = partitions.get(partitionKey);
    if (partition == null) {
      PartitionKey copied = partitionKey.copy();
      partition = new PartitionDelta(spec.isUnpartitioned() ? null : copied);
      partitions.put(copied, partition);
    }
    switch (row.getRowKind()) {
      case INSERT, UPDATE_AFTER -> partition.insert(row, keyProjection.wrap(wrapper.wrap(row)));
      case UPDATE_BEFORE, DELETE -> partition.delete(row, keyProjection.wrap(wrapper.wrap(row)));
    }
  }

  @Override
  public void abort() throws IOException {
    close();
    for (ContentFile<?> file : dataFiles) {
      io.deleteFile(file.location());
    }
    for (ContentFile<?> file : deleteFiles) {
      io.deleteFile(file.location());
    }
  }

  /**
   * Drops the files of this checkpoint unfinished: no Parquet encoding, no upload, no delete, and
   * no {@link WriteResult}. For rows no checkpoint will commit (the writer's task is cancelled or
   * failed): finishing them would only make orphan files, and the restart of the job waits for the
   * cancelled task. The open streams are left to the garbage collector; the rows, buffered in
   * memory until a file's first row group is full, never reach them.
   */
  void discard() {
    closed = true;
    partitions.clear();
  }

  /** As {@link #complete(Executor)}, closing the files one after another on this thread. */
  @Override
  public WriteResult complete() throws IOException {
    return complete(Runnable::run);
  }

  /**
   * Closes this checkpoint's files, the partitions' at once: this thread and up to {@code
   * MAX_CONCURRENT_CLOSES - 1} tasks on {@code closer} each close one partition's files after
   * another until none is left.
   *
   * <p>Why: with S3FileIO a file smaller than a multipart part is uploaded whole when it is closed,
   * and a checkpoint's files are that small, so one after another the barrier waited partitions ×
   * the store's latency. Iceberg offers nothing for it: its S3 multipart options parallelise the
   * parts of one large file, and its own Flink writers close their files in turn too.
   *
   * <p>The result is the one closing them in turn gives: the files in partition order. When files
   * fail to close, every partition is still closed and the first failure is thrown with the others
   * suppressed; the checkpoint then fails and nothing of it is committed.
   */
  WriteResult complete(Executor closer) throws IOException {
    if (!closed) {
      closed = true;
      List<PartitionDelta> open = List.copyOf(partitions.values());
      partitions.clear();
      closeAll(
          open,
          closer,
          closedFiles -> {
            dataFiles.addAll(Arrays.asList(closedFiles.dataFiles()));
            deleteFiles.addAll(Arrays.asList(closedFiles.deleteFiles()));
            referencedDataFiles.addAll(Arrays.asList(closedFiles.referencedDataFiles()));
          });
    }
    return WriteResult.builder()
        .addDataFiles(dataFiles)
        .addDeleteFiles(deleteFiles)
        .addReferencedDataFiles(referencedDataFiles)
        .build();
  }

  @Override
  public void close() throws IOException {
    complete();
  }

  /**
   * Closes every partition of {@code open} and hands each one's closed files to {@code closed} on
   * this thread, in the order of {@code open}, those that closed also when others failed (for
   * {@link #abort}).
   */
  private static void closeAll(
      List<PartitionDelta> open, Executor closer, Consumer<WriteResult> closed) throws IOException {
    WriteResult[] results = new WriteResult[open.size()];
    Throwable[] failures = new Throwable[open.size()];
    AtomicInteger next = new AtomicInteger();
    Runnable closing =
        () -> {
          for (int i = next.getAndIncrement(); i < open.size(); i = next.getAndIncrement()) {
            try {
              results[i] = open.get(i).close();
            } catch (Throwable e) {
              failures[i] = e;
            }
          }
        };
    List<CompletableFuture<Void>> helpers = new ArrayList<>();
    for (int i = 1; i < Math.min(open.size(), MAX_CONCURRENT_CLOSES); i++) {
      helpers.add(CompletableFuture.runAsync(closing, closer));
    }
    closing.run();
    try {
      CompletableFuture.allOf(helpers.toArray(CompletableFuture[]::new)).get();
    } catch (InterruptedException e) {
      // Cancelled: the helpers take no further partition, and the task does not wait for them.
      next.set(open.size());
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while closing the checkpoint's files");
    } catch (ExecutionException e) {
      // The closing task catches everything; only the executor can fail it, e.g. shut down.
      throw new IOException("could not close the checkpoint's files", e.getCause());
    }
    Throwable first = null;
    for (int i = 0; i < open.size(); i++) {
      Throwable failure = failures[i];
      if (failure == null) {
        closed.accept(results[i]);
        continue;
      }
      if (first == null) {
        first = failure;
      } else {
        first.addSuppressed(failure);
      }
    }
    if (first instanceof IOException io) {
      throw io;
    }
    if (first instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (first instanceof Error error) {
      throw error;
    }
    if (first != null) {
      throw new IOException(first);
    }
  }

  /** Where a written row is, to delete it by position. */
  private record Position(CharSequence path, long row) {}

  /** One partition's writers, each opened on its first row. */
  private final class PartitionDelta {
    private final StructLike partition;
    private final Map<StructLike, Position> written = StructLikeMap.create(deleteSchema.asStruct());
    private final PositionDelete<RowData> positionDelete = PositionDelete.create();
    private RollingDataWriter<RowData> data;
    private RollingEqualityDeleteWriter<RowData> equalityDeletes;
    private SortingPositionOnlyDeleteWriter<RowData> positionDeletes;

    PartitionDelta(StructLike partition) {
      this.partition = partition;
    }

    void insert(RowData row, StructLike key) {
      if (data == null) {
        data = new RollingDataWriter<>(files, fileFactory, io, targetFileSize, spec, partition);
      }
      Position at = new Position(data.currentFilePath(), data.currentFileRows());
      Position previous = written.put(StructLikeUtil.copy(key), at);
      if (previous != null) {
        deleteAt(previous);
      }
      data.write(row);
    }

    void delete(RowData row, StructLike key) {
      Position previous = written.remove(key);
      if (previous != null) {
        deleteAt(previous);
        return;
      }
      if (equalityDeletes == null) {
        equalityDeletes =
            new RollingEqualityDeleteWriter<>(
                files, fileFactory, io, targetFileSize, spec, partition);
      }
      equalityDeletes.write(row);
    }

    private void deleteAt(Position position) {
      if (positionDeletes == null) {
        positionDeletes =
            new SortingPositionOnlyDeleteWriter<>(
                () ->
                    files.newPositionDeleteWriter(
                        partition == null
                            ? fileFactory.newOutputFile()
                            : fileFactory.newOutputFile(spec, partition),
                        spec,
                        partition),
                DeleteGranularity.FILE);
      }
      positionDelete.set(position.path(), position.row());
      positionDeletes.write(positionDelete);
    }

    /** This partition's files, closed; on a thread of its own (no state shared with others). */
    WriteResult close() throws IOException {
      WriteResult.Builder closed = WriteResult.builder();
      if (data != null) {
        data.close();
        closed.addDataFiles(data.result().dataFiles());
      }
      if (equalityDeletes != null) {
        equalityDeletes.close();
        closed.addDeleteFiles(equalityDeletes.result().deleteFiles());
      }
      if (positionDeletes != null) {
        positionDeletes.close();
        closed.addDeleteFiles(positionDeletes.result().deleteFiles());
        closed.addReferencedDataFiles(positionDeletes.result().referencedDataFiles());
      }
      return closed.build();
    }
  }
}
