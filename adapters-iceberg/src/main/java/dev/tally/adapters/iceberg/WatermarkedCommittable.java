package dev.tally.adapters.iceberg;

import java.util.Objects;

/**
 * Iceberg's committable with the watermark its checkpoint covers, carried through the checkpoint to
 * the commit that writes it ({@link CompletenessMarker}).
 *
 * @param committable Iceberg's committable, unchanged
 * @param checkpointId the checkpoint it belongs to; {@link Long#MIN_VALUE} for one restored from
 *     state taken before committables carried a watermark (such committables are older than any
 *     other)
 * @param watermark the {@link CompletenessMarker} value its snapshot gets
 * @param <C> Iceberg's committable
 */
record WatermarkedCommittable<C>(C committable, long checkpointId, long watermark) {

  WatermarkedCommittable {
    Objects.requireNonNull(committable, "committable");
  }
}
