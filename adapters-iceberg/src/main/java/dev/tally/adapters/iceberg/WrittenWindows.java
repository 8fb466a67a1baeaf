package dev.tally.adapters.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * How far the table's rows reach in event time when a job starts: the latest {@code window_start}
 * of any live data file, read from the column bounds in the manifests (no data file is opened).
 * Rows of later windows cannot exist yet, so the sink may insert them without deleting the key
 * first (see {@link SpendingRows}).
 */
final class WrittenWindows {

  private WrittenWindows() {}

  /**
   * @return the latest {@code window_start} in epoch milliseconds of any row in the table's current
   *     snapshot; {@link Long#MIN_VALUE} when it has no data; {@link Long#MAX_VALUE} when a data
   *     file carries no upper bound for the column (metrics turned off), which makes every row an
   *     upsert
   */
  static long latestWindowStartMillis(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return Long.MIN_VALUE;
    }
    int fieldId = table.schema().findField(SpendingTable.WINDOW_START).fieldId();
    long latestMicros = Long.MIN_VALUE;
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(current.snapshotId()).includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        ByteBuffer upper = file.upperBounds() == null ? null : file.upperBounds().get(fieldId);
        if (upper == null) {
          if (file.recordCount() == 0) {
            continue;
          }
          return Long.MAX_VALUE;
        }
        long micros = Conversions.<Long>fromByteBuffer(Types.TimestampType.withZone(), upper);
        latestMicros = Math.max(latestMicros, micros);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the manifests of " + table.name(), e);
    }
    // Bounds are microseconds; a window start is a whole millisecond, so rounding up is exact.
    return latestMicros == Long.MIN_VALUE
        ? Long.MIN_VALUE
        : Math.floorDiv(latestMicros + 999, 1000);
  }
}
