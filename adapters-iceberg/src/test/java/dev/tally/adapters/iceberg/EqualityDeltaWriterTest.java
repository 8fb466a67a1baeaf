package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.spending.SpendingAggregate;
import dev.tally.domain.spending.SpendingKey;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.window.EventTimeWindow;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link EqualityDeltaWriter} as the sink builds it ({@link DeltaSinkWriter#writers}) on the real
 * table layout: the files it opens, the deletes it writes, and the same table contents as Iceberg's
 * own delta writer for the same rows.
 */
class EqualityDeltaWriterTest {

  private static final long TEN = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();
  private static final long HOUR = 3_600_000L;

  @RegisterExtension final LocalCatalog local = LocalCatalog.counting();

  /** Closes the partitions' files at once, as the sink writer does, so these tests cover it. */
  private final ExecutorService closer = Executors.newFixedThreadPool(4);

  private int checkpoint;

  @AfterEach
  void stopCloser() {
    closer.shutdownNow();
  }

  private static WindowedSpending spending(String user, long start, long total, boolean first) {
    return new WindowedSpending(
        new SpendingKey(user, "EUR"),
        new EventTimeWindow(start, start + HOUR),
        new SpendingAggregate(total, 1),
        first);
  }

  private static List<RowData> rows(WindowedSpending... emitted) {
    List<RowData> rows = new ArrayList<>();
    SpendingRows mapper = new SpendingRows(Long.MIN_VALUE);
    for (WindowedSpending spending : emitted) {
      mapper.flatMap(spending, new ListCollector<>(rows));
    }
    return rows;
  }

  private TaskWriter<RowData> tallyWriter(Table table) {
    return DeltaSinkWriter.writers(table, SpendingTable.IDENTIFIER_FIELDS, 0, checkpoint++).get();
  }

  private TaskWriter<RowData> icebergWriter(Table table) {
    RowDataTaskWriterFactory factory =
        new RowDataTaskWriterFactory(
            table,
            SpendingTable.ROW_TYPE,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT,
            FileFormat.PARQUET,
            table.properties(),
            table.schema().identifierFieldIds().stream().toList(),
            false);
    factory.initialize(0, checkpoint++);
    return factory.create();
  }

  /** One checkpoint: the rows through the writer, committed as one row delta. */
  private WriteResult commit(Table table, TaskWriter<RowData> writer, List<RowData> rows)
      throws IOException {
    for (RowData row : rows) {
      writer.write(row);
    }
    WriteResult result =
        writer instanceof EqualityDeltaWriter tally ? tally.complete(closer) : writer.complete();
    RowDelta delta = table.newRowDelta();
    Arrays.stream(result.dataFiles()).forEach(delta::addRows);
    Arrays.stream(result.deleteFiles()).forEach(delta::addDeletes);
    delta.commit();
    table.refresh();
    return result;
  }

  private static CountingFileIO io(Table table) {
    return (CountingFileIO) table.io();
  }

  /** user@window → total, failing on a duplicate key. */
  private static Map<String, Long> totals(Table table) throws IOException {
    table.refresh();
    Map<String, Long> totals = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        String key =
            record.getField("user_id")
                + "@"
                + ((OffsetDateTime) record.getField("window_start")).toInstant();
        Long previous = totals.put(key, (Long) record.getField("total_spent_cents"));
        assertThat(previous).as("a second row for %s", key).isNull();
      }
    }
    return totals;
  }

  private static long deleteFilesOf(WriteResult result, FileContent content) {
    return Arrays.stream(result.deleteFiles()).filter(f -> f.content() == content).count();
  }

  @Test
  void aCheckpointOfInsertsOpensOneDataFilePerPartitionAndNothingElse() throws IOException {
    Table table = local.createSpendingTable(16);
    List<WindowedSpending> emitted = new ArrayList<>();
    for (int user = 0; user < 40; user++) {
      emitted.add(spending("user-" + user, TEN, 100 + user, true));
    }

    WriteResult result =
        commit(table, tallyWriter(table), rows(emitted.toArray(WindowedSpending[]::new)));

    // Iceberg's writer opens an equality-delete file next to every data file, then deletes it
    // empty: 2 × partitions created, partitions deleted.
    assertThat(result.dataFiles()).hasSizeGreaterThan(5);
    assertThat(result.deleteFiles()).isEmpty();
    assertThat(io(table).created()).isEqualTo(result.dataFiles().length);
    assertThat(io(table).deleted()).isZero();
    assertThat(totals(table)).hasSize(40);
  }

  @Test
  void aReplacementInTheSameCheckpointIsAPositionDelete() throws IOException {
    Table table = local.createSpendingTable(4);

    WriteResult result =
        commit(
            table,
            tallyWriter(table),
            rows(spending("alice", TEN, 100, true), spending("alice", TEN, 250, false)));

    assertThat(deleteFilesOf(result, FileContent.POSITION_DELETES)).isEqualTo(1);
    assertThat(deleteFilesOf(result, FileContent.EQUALITY_DELETES)).isZero();
    assertThat(result.referencedDataFiles()).hasSize(1);
    assertThat(totals(table)).containsOnly(Map.entry("alice@2026-11-29T10:00:00Z", 250L));
  }

  @Test
  void aReplacementInALaterCheckpointIsAnEqualityDelete() throws IOException {
    Table table = local.createSpendingTable(4);
    commit(table, tallyWriter(table), rows(spending("alice", TEN, 100, true)));

    WriteResult result =
        commit(table, tallyWriter(table), rows(spending("alice", TEN, 400, false)));

    assertThat(deleteFilesOf(result, FileContent.EQUALITY_DELETES)).isEqualTo(1);
    assertThat(deleteFilesOf(result, FileContent.POSITION_DELETES)).isZero();
    assertThat(totals(table)).containsOnly(Map.entry("alice@2026-11-29T10:00:00Z", 400L));
  }

  @Test
  void writesWhatIcebergsWriterWritesForTheSameRows() throws IOException {
    Table iceberg = local.createSpendingTable("iceberg", 4);
    Table tally = local.createSpendingTable("tally", 4);
    Random random = new Random(7);
    Map<String, Boolean> emittedBefore = new TreeMap<>();
    for (int checkpoints = 0; checkpoints < 4; checkpoints++) {
      List<WindowedSpending> emitted = new ArrayList<>();
      for (int i = 0; i < 120; i++) {
        String user = "user-" + random.nextInt(30);
        long start = TEN + random.nextInt(30) * HOUR;
        boolean first = emittedBefore.put(user + "@" + start, true) == null;
        emitted.add(spending(user, start, random.nextInt(1_000_000), first));
      }
      List<RowData> rows = rows(emitted.toArray(WindowedSpending[]::new));
      WriteResult byIceberg = commit(iceberg, icebergWriter(iceberg), rows);
      WriteResult byTally = commit(tally, tallyWriter(tally), rows);

      assertThat(byTally.dataFiles()).hasSameSizeAs(byIceberg.dataFiles());
      for (FileContent content :
          List.of(FileContent.POSITION_DELETES, FileContent.EQUALITY_DELETES)) {
        assertThat(deleteFilesOf(byTally, content)).isEqualTo(deleteFilesOf(byIceberg, content));
      }
      assertThat(totals(tally)).isEqualTo(totals(iceberg));
    }
    // The rows had replacements in the same and in later checkpoints, and the tables saw them.
    assertThat(totals(tally)).hasSizeGreaterThan(200);
  }
}
