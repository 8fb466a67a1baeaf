package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.spending.SpendingAggregate;
import dev.tally.domain.spending.SpendingKey;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.window.EventTimeWindow;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

class SpendingRowsTest {

  private static final Instant START = Instant.parse("2026-11-29T10:00:00Z");
  private static final Instant END = Instant.parse("2026-11-29T11:00:00Z");

  private static WindowedSpending spending(boolean first) {
    return new WindowedSpending(
        new SpendingKey("user-ä1", "EUR"),
        new EventTimeWindow(START.toEpochMilli(), END.toEpochMilli()),
        new SpendingAggregate(-1_234_567_890_123L, 42),
        first);
  }

  private static WindowedSpending spending() {
    return spending(true);
  }

  private static List<RowData> rows(long tableUpTo, WindowedSpending spending) {
    List<RowData> rows = new ArrayList<>();
    new SpendingRows(tableUpTo).flatMap(spending, new ListCollector<>(rows));
    return rows;
  }

  private static List<RowKind> kinds(List<RowData> rows) {
    return rows.stream().map(RowData::getRowKind).toList();
  }

  @Test
  void aFirstRowOfAWindowAfterTheTablesHorizonIsAPlainInsert() {
    assertThat(kinds(rows(Long.MIN_VALUE, spending(true)))).containsExactly(RowKind.INSERT);
    assertThat(kinds(rows(START.toEpochMilli() - 1, spending(true))))
        .containsExactly(RowKind.INSERT);
  }

  @Test
  void aRowThatMayReplaceAnotherDeletesTheKeyFirst() {
    // Emitted before by this state: the table may hold the key.
    assertThat(kinds(rows(Long.MIN_VALUE, spending(false))))
        .containsExactly(RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER);
    // New to this state, but the table already held rows of this window when the job started
    // (e.g. a run without the state wrote it).
    assertThat(kinds(rows(START.toEpochMilli(), spending(true))))
        .containsExactly(RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER);
    // Unknown horizon: everything replaces.
    assertThat(kinds(rows(Long.MAX_VALUE, spending(true))))
        .containsExactly(RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER);
  }

  @Test
  void bothHalvesOfAReplacementCarryTheKey() {
    List<RowData> rows = rows(Long.MAX_VALUE, spending(false));
    for (RowData row : rows) {
      assertThat(row.getString(0).toString()).isEqualTo("user-ä1");
      assertThat(row.getString(1).toString()).isEqualTo("EUR");
      assertThat(row.getTimestamp(2, 6).toInstant()).isEqualTo(START);
    }
  }

  @Test
  void mapsEveryFieldInTableColumnOrder() {
    RowData row = rows(Long.MIN_VALUE, spending()).get(0);

    assertThat(row.getArity()).isEqualTo(SpendingTable.SCHEMA.columns().size());
    assertThat(row.getRowKind()).isEqualTo(RowKind.INSERT);
    assertThat(row.getString(0).toString()).isEqualTo("user-ä1");
    assertThat(row.getString(1).toString()).isEqualTo("EUR");
    assertThat(row.getTimestamp(2, 6).toInstant()).isEqualTo(START);
    assertThat(row.getTimestamp(3, 6).toInstant()).isEqualTo(END);
    assertThat(row.getLong(4)).isEqualTo(-1_234_567_890_123L);
    assertThat(row.getLong(5)).isEqualTo(42L);
  }

  @Test
  void rowsCrossOperatorsWithFlinksRowDataSerializerNotKryo() throws IOException {
    TypeInformation<RowData> type = SpendingTable.rowTypeInfo();
    SerializerConfigImpl config = new SerializerConfigImpl();
    config.setGenericTypes(false); // createSerializer throws if anything would need Kryo

    TypeSerializer<RowData> serializer = type.createSerializer(config);
    DataOutputSerializer out = new DataOutputSerializer(128);
    serializer.serialize(SpendingRows.row(RowKind.INSERT, spending()), out);
    RowData copy =
        serializer.deserialize(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));

    assertThat(serializer).isInstanceOf(RowDataSerializer.class);
    assertThat(copy.getString(0).toString()).isEqualTo("user-ä1");
    assertThat(copy.getTimestamp(2, 6)).isEqualTo(TimestampData.fromInstant(START));
    assertThat(copy.getTimestamp(3, 6)).isEqualTo(TimestampData.fromInstant(END));
    assertThat(copy.getLong(4)).isEqualTo(-1_234_567_890_123L);
    assertThat(copy.getLong(5)).isEqualTo(42L);
  }
}
