package dev.tally.adapters.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.flink.TableLoader;

/**
 * The job's event-time progress as a table records it (docs/behaviour.md "Completeness"): every
 * snapshot Tally's sink commits carries {@value #PROPERTY} in its summary, the watermark covered by
 * the checkpoint that produced it, in epoch milliseconds. A window {@code [start, end)} is final in
 * that snapshot, and in every later one, when {@code end + allowed lateness <= watermark}.
 *
 * <p>The value follows the behaviour contract's "the watermark" ({@code largest event time −
 * bound}; Flink's own watermark is one less, see {@link #fromFlinkWatermark}); {@link
 * Long#MIN_VALUE} before the job has any watermark, {@link Long#MAX_VALUE} once its input has
 * ended. Snapshots that others commit (Tally's maintenance, a compaction by another engine) carry
 * none: a final window never changes, so the newest marker in a snapshot's ancestry holds for it
 * too ({@link #of}).
 *
 * @param snapshotId the snapshot whose summary carries the marker
 * @param watermark the marker's value, epoch milliseconds
 */
public record CompletenessMarker(long snapshotId, long watermark) {

  /** The snapshot summary property. */
  public static final String PROPERTY = "tally.watermark";

  /**
   * The marker value for a Flink watermark: Flink's watermark {@code W} promises no event at or
   * before {@code W}, so everything before {@code W + 1} is complete.
   */
  static long fromFlinkWatermark(long flinkWatermark) {
    return flinkWatermark == Long.MIN_VALUE || flinkWatermark == Long.MAX_VALUE
        ? flinkWatermark
        : flinkWatermark + 1;
  }

  /**
   * The event time up to which (inclusive) the input is complete, the convention of the domain's
   * {@code UserLedger#finalAt}: a window is final here when {@code finalAt(start) <=
   * completeUpTo()}.
   */
  public long completeUpTo() {
    return watermark == Long.MIN_VALUE || watermark == Long.MAX_VALUE ? watermark : watermark - 1;
  }

  /** The newest marker in the current snapshot's ancestry, if any. */
  static Optional<CompletenessMarker> of(Table table) {
    for (Snapshot s = table.currentSnapshot(); s != null; ) {
      String value = s.summary().get(PROPERTY);
      if (value != null) {
        return Optional.of(new CompletenessMarker(s.snapshotId(), Long.parseLong(value)));
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    return Optional.empty();
  }

  /**
   * The newest marker of the output table of {@code config}, read from its catalog; empty when the
   * table does not exist or no snapshot of it carries one.
   */
  public static Optional<CompletenessMarker> read(IcebergSinkConfig config) {
    try (TableLoader loader = IcebergCatalogs.tableLoader(config)) {
      loader.open();
      return of(loader.loadTable());
    } catch (NoSuchTableException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("closing the Iceberg catalog", e);
    }
  }
}
