package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class IcebergStatsTest {

  @Test
  void aSnapshotWithoutAMarkerKeepsTheNewestMarkerOfItsAncestry() throws Exception {
    try (InMemoryCatalog catalog = new InMemoryCatalog()) {
      catalog.initialize("test", Map.of());
      catalog.createNamespace(Namespace.of("bench"));
      Table table =
          catalog.createTable(
              TableIdentifier.of("bench", "t"),
              new Schema(Types.NestedField.required(1, "user_id", Types.StringType.get())));
      assertThat(IcebergStats.marker(table)).isEqualTo(Long.MIN_VALUE);

      table.newAppend().set(IcebergStats.WATERMARK, "1000").commit();
      table.newAppend().set(IcebergStats.WATERMARK, "2000").commit();
      // A commit of Tally's maintenance (or another engine's compaction) carries no marker.
      table.newAppend().commit();

      assertThat(table.currentSnapshot().summary()).doesNotContainKey(IcebergStats.WATERMARK);
      assertThat(IcebergStats.marker(table)).isEqualTo(2000L);
    }
  }
}
