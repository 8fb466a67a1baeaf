package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tally.domain.spending.SpendingAggregate;
import dev.tally.domain.spending.SpendingKey;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.window.EventTimeWindow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.IcebergStreamWriterMetrics;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.relocated.com.google.common.base.Throwables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sink writer's checkpoint, which closes the partitions' files at once as a slow object store
 * needs, and its close, which Flink calls when the writer's task is cancelled or has failed (and,
 * with nothing open, after the last checkpoint of a bounded input): the rows since the last
 * checkpoint are never committed, so they are dropped, not encoded and uploaded into orphan files
 * while the job's restart waits.
 */
class DeltaSinkWriterTest {

  private static final long TEN = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();
  private static final long HOUR = 3_600_000L;

  /** The smallest Parquet file: magic, an empty footer, its length and the magic again. */
  private static final long SMALLEST_PARQUET_FILE = 12;

  @RegisterExtension final LocalCatalog local = LocalCatalog.gated();

  private static List<RowData> rows(int users, long window) {
    List<RowData> rows = new ArrayList<>();
    SpendingRows mapper = new SpendingRows(Long.MIN_VALUE);
    for (int user = 0; user < users; user++) {
      WindowedSpending spending =
          new WindowedSpending(
              new SpendingKey("user-" + user, "EUR"),
              new EventTimeWindow(window, window + HOUR),
              new SpendingAggregate(100 + user, 1),
              true);
      mapper.flatMap(spending, new ListCollector<>(rows));
    }
    return rows;
  }

  private static DeltaSinkWriter writer(Table table) {
    return new DeltaSinkWriter(
        TableLoader.fromHadoopTable(table.location()),
        DeltaSinkWriter.writers(table, SpendingTable.IDENTIFIER_FIELDS, 0, 1),
        new IcebergStreamWriterMetrics(new UnregisteredMetricsGroup(), table.name()),
        "Sink: spending (1/1)#0");
  }

  private static void write(DeltaSinkWriter writer, List<RowData> rows) throws IOException {
    for (RowData row : rows) {
      writer.write(row, null);
    }
  }

  private static Path pathOf(DataFile file) {
    return Path.of(URI.create(file.location()).getPath());
  }

  /** Every file under the table's data directory, with its size. */
  private static Map<Path, Long> dataFiles(Table table) throws IOException {
    Path data = Path.of(table.location(), "data");
    if (!Files.exists(data)) {
      return Map.of();
    }
    try (Stream<Path> paths = Files.walk(data)) {
      return paths
          .filter(Files::isRegularFile)
          .filter(path -> !path.getFileName().toString().endsWith(".crc"))
          .collect(Collectors.toMap(path -> path, DeltaSinkWriterTest::size));
    }
  }

  private static long size(Path path) {
    try {
      return Files.size(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static GatedFileIO io(Table table) {
    return (GatedFileIO) table.io();
  }

  /**
   * With S3FileIO a small file is uploaded whole when it is closed, so closing the partitions'
   * files one after another made the barrier wait partitions × the store's latency. The IO holds
   * each close until every partition's file is closing: closed in turn, the first one fails.
   */
  @Test
  void aCheckpointClosesThePartitionsFilesAtOnce() throws IOException {
    Table table = local.createSpendingTable(8);
    DeltaSinkWriter writer = writer(table);
    write(writer, rows(40, TEN));
    int files = io(table).created();
    assertThat(files).as("partitions written").isGreaterThan(2);
    io(table).holdClosesUntil(files, Duration.ofSeconds(20));

    List<WriteResult> checkpoint = List.copyOf(writer.prepareCommit());

    List<DataFile> committable =
        checkpoint.stream().flatMap(result -> Stream.of(result.dataFiles())).toList();
    assertThat(committable).hasSize(files);
    assertThat(committable.stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(40);
    Map<Path, Long> onDisk = dataFiles(table);
    for (DataFile file : committable) {
      assertThat(onDisk.get(pathOf(file))).as("%s", file).isEqualTo(file.fileSizeInBytes());
    }
    writer.close();
  }

  /** Every partition's file is closed even when some fail, and every failure is reported. */
  @Test
  void aCheckpointReportsEveryFileThatFailedToClose() throws IOException {
    Table table = local.createSpendingTable(8);
    DeltaSinkWriter writer = writer(table);
    write(writer, rows(40, TEN));
    int files = io(table).created();
    io(table).failCloses();

    Throwable failure = catchThrowable(writer::prepareCommit);

    // Iceberg's rolling writer wraps the IO's failure; each file's own failure is the root cause.
    assertThat(failure).isNotNull();
    List<String> failed =
        Stream.concat(Stream.of(failure), Stream.of(failure.getSuppressed()))
            .map(thrown -> Throwables.getRootCause(thrown).getMessage())
            .distinct()
            .toList();
    assertThat(failed).hasSize(files).allMatch(message -> message.startsWith("close of "));
    writer.close();
  }

  @Test
  void closingDropsTheRowsSinceTheLastCheckpointWithoutFinishingAFile() throws IOException {
    Table table = local.createSpendingTable(4);
    DeltaSinkWriter writer = writer(table);
    write(writer, rows(200, TEN));

    writer.close();

    // Files were opened for the rows, but none was finished: no Parquet footer was written, so
    // no row was encoded, and nothing was deleted either.
    assertThat(((CountingFileIO) table.io()).created()).isPositive();
    assertThat(dataFiles(table).values()).allMatch(size -> size < SMALLEST_PARQUET_FILE);
    assertThat(((CountingFileIO) table.io()).deleted()).isZero();
  }

  @Test
  void closingKeepsTheFilesOfACheckpointAndDropsOnlyWhatCameAfter() throws IOException {
    Table table = local.createSpendingTable(4);
    DeltaSinkWriter writer = writer(table);
    write(writer, rows(200, TEN));
    List<WriteResult> checkpoint = List.copyOf(writer.prepareCommit());
    write(writer, rows(200, TEN + HOUR));

    writer.close();

    List<DataFile> committable =
        checkpoint.stream().flatMap(result -> Stream.of(result.dataFiles())).toList();
    assertThat(committable).isNotEmpty();
    assertThat(committable.stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(200);
    Map<Path, Long> onDisk = dataFiles(table);
    for (DataFile file : committable) {
      assertThat(onDisk.get(pathOf(file))).as("%s", file).isEqualTo(file.fileSizeInBytes());
    }
    assertThat(onDisk)
        .as("files of the rows after the checkpoint")
        .allSatisfy(
            (path, size) -> {
              if (committable.stream().noneMatch(f -> pathOf(f).equals(path))) {
                assertThat(size).isLessThan(SMALLEST_PARQUET_FILE);
              }
            });
    assertThat(((CountingFileIO) table.io()).deleted()).isZero();
  }
}
