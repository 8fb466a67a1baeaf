package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.spending.SpendingAggregate;
import dev.tally.domain.spending.SpendingKey;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.window.EventTimeWindow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.table.data.RowData;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link SpendingRows} through Iceberg's own Flink writer in the mode the sink uses (identifier
 * fields, upsert off) on the real table layout, one commit per simulated checkpoint, and {@link
 * WrittenWindows} on the result.
 */
class SpendingRowsOnIcebergTest {

  private static final long TEN = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();
  private static final long ELEVEN = Instant.parse("2026-11-29T11:00:00Z").toEpochMilli();
  private static final long HOUR = 3_600_000L;

  @RegisterExtension final LocalCatalog local = new LocalCatalog();

  private Table table;
  private int checkpoint;

  @BeforeEach
  void createTable() {
    table = local.createSpendingTable(4);
  }

  private static WindowedSpending spending(
      String user, long start, long total, long count, boolean first) {
    return new WindowedSpending(
        new SpendingKey(user, "EUR"),
        new EventTimeWindow(start, start + HOUR),
        new SpendingAggregate(total, count),
        first);
  }

  /** One checkpoint: every row through one writer, committed as one row delta. */
  private void commit(long tableUpTo, WindowedSpending... emitted) {
    RowDataTaskWriterFactory factory =
        new RowDataTaskWriterFactory(
            table,
            SpendingTable.ROW_TYPE,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT,
            FileFormat.PARQUET,
            table.properties(),
            table.schema().identifierFieldIds().stream().toList(),
            false);
    factory.initialize(1, checkpoint++);
    TaskWriter<RowData> writer = factory.create();
    List<RowData> rows = new ArrayList<>();
    SpendingRows mapper = new SpendingRows(tableUpTo);
    for (WindowedSpending spending : emitted) {
      mapper.flatMap(spending, new ListCollector<>(rows));
    }
    try {
      for (RowData row : rows) {
        writer.write(row);
      }
      WriteResult result = writer.complete();
      RowDelta delta = table.newRowDelta();
      Arrays.stream(result.dataFiles()).forEach(delta::addRows);
      Arrays.stream(result.deleteFiles()).forEach(delta::addDeletes);
      delta.commit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    table.refresh();
  }

  /** user@window → total, failing on a duplicate key. */
  private Map<String, Long> totals() throws IOException {
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

  private int deleteFiles() throws IOException {
    int count = 0;
    try (var tasks = table.newScan().planFiles()) {
      for (var task : tasks) {
        count += task.deletes().size();
      }
    }
    return count;
  }

  @Test
  void firstRowsAreInsertedWithoutDeleteFiles() throws IOException {
    commit(Long.MIN_VALUE, spending("alice", TEN, 100, 1, true), spending("bob", TEN, 5, 1, true));

    assertThat(totals())
        .containsOnly(
            Map.entry("alice@2026-11-29T10:00:00Z", 100L),
            Map.entry("bob@2026-11-29T10:00:00Z", 5L));
    assertThat(deleteFiles()).isZero();
  }

  @Test
  void aLaterRowReplacesTheFirstInTheSameAndInALaterCheckpoint() throws IOException {
    // Same checkpoint: first row, then its update (early firing or a late event).
    commit(
        Long.MIN_VALUE,
        spending("alice", TEN, 100, 1, true),
        spending("alice", TEN, 250, 2, false));
    // A later checkpoint: another update of the committed row.
    commit(Long.MIN_VALUE, spending("alice", TEN, 400, 3, false));

    assertThat(totals()).containsOnly(Map.entry("alice@2026-11-29T10:00:00Z", 400L));
  }

  @Test
  void aRunWithoutStateReplacesWhatTheTableHoldsUpToItsHorizon() throws IOException {
    commit(Long.MIN_VALUE, spending("alice", TEN, 100, 1, true));
    long horizon = WrittenWindows.latestWindowStartMillis(table);
    assertThat(horizon).isEqualTo(TEN);

    // A fresh run re-reads the same input: its "first" rows for 10:00 must replace, the new
    // window 11:00 is inserted.
    commit(horizon, spending("alice", TEN, 100, 1, true), spending("alice", ELEVEN, 7, 1, true));

    assertThat(totals())
        .containsOnly(
            Map.entry("alice@2026-11-29T10:00:00Z", 100L),
            Map.entry("alice@2026-11-29T11:00:00Z", 7L));
    assertThat(WrittenWindows.latestWindowStartMillis(table)).isEqualTo(ELEVEN);
  }

  @Test
  void ignoringTheHorizonWouldDuplicateTheKey() throws IOException {
    // The test above can fail: a first row below the horizon inserted blindly gives two rows.
    commit(Long.MIN_VALUE, spending("alice", TEN, 100, 1, true));
    commit(Long.MIN_VALUE, spending("alice", TEN, 100, 1, true));

    org.assertj.core.api.Assertions.assertThatThrownBy(this::totals)
        .hasMessageContaining("a second row for alice@2026-11-29T10:00:00Z");
  }

  @Test
  void anEmptyTableHasNoHorizon() {
    assertThat(WrittenWindows.latestWindowStartMillis(table)).isEqualTo(Long.MIN_VALUE);
  }
}
