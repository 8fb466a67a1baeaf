package dev.tally.adapters.iceberg;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.concurrent.ExecutorThreadFactory;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.FlinkWriteConf;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkFileWriterFactory;
import org.apache.iceberg.flink.sink.IcebergStreamWriterMetrics;
import org.apache.iceberg.flink.sink.SinkUtil;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;

/**
 * The sink writer of {@link TallyIcebergSink} for a keyed table: what Iceberg's own sink writer
 * does (one {@link WriteResult} per checkpoint, Iceberg's writer metrics), with {@link
 * EqualityDeltaWriter} in place of Iceberg's delta writer. The files are configured as Iceberg's
 * sink configures them for a builder without write options: format, target size and write
 * properties from the table. Unlike Iceberg's, it closes a checkpoint's files at once, not one
 * partition after another ({@link EqualityDeltaWriter#complete(Executor)}), so a slow object store
 * delays the barrier by its latency, not by partitions × its latency.
 */
final class DeltaSinkWriter implements CommittingSinkWriter<RowData, WriteResult> {

  private final TableLoader loader;
  private final Supplier<EqualityDeltaWriter> writers;
  private final IcebergStreamWriterMetrics metrics;

  /**
   * Closes the partitions' files of a checkpoint next to the task thread ({@link
   * EqualityDeltaWriter#complete(Executor)}): no thread is kept idle, and no more run than one
   * checkpoint closes at once, at most {@link EqualityDeltaWriter#MAX_CONCURRENT_CLOSES} - 1. When
   * a thread that just finished is not yet back for the next task, the task thread closes that
   * share itself rather than fail the checkpoint.
   */
  private final ThreadPoolExecutor closer;

  private EqualityDeltaWriter writer;

  /**
   * @param loader the open loader of {@code table}; closed with this writer
   * @param table a table of format version 2 (position deletes are files, not deletion vectors)
   * @param equalityColumns the columns that key a row
   */
  DeltaSinkWriter(
      TableLoader loader, Table table, List<String> equalityColumns, WriterInitContext context) {
    this(
        loader,
        writers(
            table,
            equalityColumns,
            context.getTaskInfo().getIndexOfThisSubtask(),
            context.getTaskInfo().getAttemptNumber()),
        new IcebergStreamWriterMetrics(context.metricGroup(), table.name()),
        context.getTaskInfo().getTaskNameWithSubtasks());
  }

  /**
   * @param loader the open loader of the table; closed with this writer
   * @param writers a new writer for each checkpoint ({@link #writers})
   * @param taskName names the threads that close the files, as in a thread dump of the task
   */
  DeltaSinkWriter(
      TableLoader loader,
      Supplier<EqualityDeltaWriter> writers,
      IcebergStreamWriterMetrics metrics,
      String taskName) {
    this.loader = loader;
    this.writers = writers;
    this.metrics = metrics;
    this.closer =
        new ThreadPoolExecutor(
            0,
            EqualityDeltaWriter.MAX_CONCURRENT_CLOSES - 1,
            60,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            new ExecutorThreadFactory("tally-iceberg-close " + taskName),
            // Not CallerRunsPolicy: it drops the task of a shut-down pool, and the checkpoint
            // would wait for it for good.
            (task, pool) -> task.run());
    this.writer = writers.get();
  }

  /**
   * A new {@link EqualityDeltaWriter} per call, for one checkpoint of one writer subtask, its files
   * configured as Iceberg's sink configures them without write options.
   */
  static Supplier<EqualityDeltaWriter> writers(
      Table table, List<String> equalityColumns, int subtask, int attempt) {
    FlinkWriteConf conf = new FlinkWriteConf(table, Map.of(), new Configuration());
    FileFormat format = conf.dataFileFormat();
    Schema schema = table.schema();
    RowType rowType = FlinkSchemaUtil.convert(schema);
    Set<Integer> equalityFieldIds =
        equalityColumns.stream()
            .map(schema::findField)
            .map(Types.NestedField::fieldId)
            .collect(Collectors.toUnmodifiableSet());
    FileWriterFactory<RowData> files =
        new FlinkFileWriterFactory.Builder(table)
            .dataFileFormat(format)
            .dataSchema(schema)
            .dataFlinkType(rowType)
            .deleteFileFormat(format)
            .equalityFieldIds(equalityFieldIds.stream().mapToInt(Integer::intValue).toArray())
            // Upsert off: an equality delete carries the whole row, as Iceberg's writer writes it.
            .equalityDeleteRowSchema(schema)
            .writerProperties(SinkUtil.writeProperties(format, conf, table))
            .build();
    OutputFileFactory fileFactory =
        OutputFileFactory.builderFor(table, subtask, attempt)
            .format(format)
            .ioSupplier(table::io)
            .defaultSpec(table.spec())
            .build();
    long targetFileSize = conf.targetDataFileSize();
    return () ->
        new EqualityDeltaWriter(
            table.spec(),
            schema,
            rowType,
            equalityFieldIds,
            files,
            fileFactory,
            table.io(),
            targetFileSize);
  }

  @Override
  public void write(RowData element, Context context) throws IOException {
    writer.write(element);
  }

  @Override
  public void flush(boolean endOfInput) {
    // The files are closed by prepareCommit, at the checkpoint or the end of input.
  }

  @Override
  public Collection<WriteResult> prepareCommit() throws IOException {
    long started = System.nanoTime();
    WriteResult result = writer.complete(closer);
    writer = writers.get();
    metrics.updateFlushResult(result);
    metrics.flushDuration(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    List<WriteResult> results = new ArrayList<>(1);
    results.add(result);
    return results;
  }

  /**
   * Drops the rows written since the last {@link #prepareCommit} unfinished ({@link
   * EqualityDeltaWriter#discard}). They are never committed: Flink closes a sink writer after its
   * last {@code prepareCommit} when the input ends, and otherwise only when its task is cancelled
   * or has failed, where the job restarts from its latest checkpoint and writes them again.
   * Finishing them, as Iceberg's own sink writer does, encoded and uploaded up to a checkpoint
   * interval's rows into orphan files while the restart of the job waited for this task.
   */
  @Override
  public void close() throws IOException {
    try {
      writer.discard();
    } finally {
      // Idle here: prepareCommit returns only once every file it closes is closed.
      closer.shutdown();
      loader.close();
    }
  }
}
