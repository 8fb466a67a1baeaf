package dev.tally.adapters.iceberg;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Writes a {@link WatermarkedCommittable}: checkpoint id, watermark, then Iceberg's committable
 * with Iceberg's serializer and its version. The committer's state holds each committable with the
 * version of the serializer that wrote it, so one written by Iceberg's serializer alone (state of a
 * job from before the watermark was carried) is still read: as a committable of an unknown
 * checkpoint whose snapshot gets no later watermark than {@link Long#MIN_VALUE}.
 *
 * @param <C> Iceberg's committable
 */
final class WatermarkedCommittableSerializer<C>
    implements SimpleVersionedSerializer<WatermarkedCommittable<C>> {

  /** Far from the small versions Iceberg's serializer counts up from. */
  static final int VERSION = 0x7A11_0001;

  private final SimpleVersionedSerializer<C> iceberg;

  WatermarkedCommittableSerializer(SimpleVersionedSerializer<C> iceberg) {
    if (iceberg.getVersion() == VERSION) {
      throw new IllegalStateException(
          "Iceberg's committable serializer has the version of Tally's own, " + VERSION);
    }
    this.iceberg = iceberg;
  }

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(WatermarkedCommittable<C> marked) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    out.writeLong(marked.checkpointId());
    out.writeLong(marked.watermark());
    SimpleVersionedSerialization.writeVersionAndSerialize(iceberg, marked.committable(), out);
    return out.getCopyOfBuffer();
  }

  @Override
  public WatermarkedCommittable<C> deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      return new WatermarkedCommittable<>(
          iceberg.deserialize(version, serialized), Long.MIN_VALUE, Long.MIN_VALUE);
    }
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    long checkpointId = in.readLong();
    long watermark = in.readLong();
    C committable = SimpleVersionedSerialization.readVersionAndDeSerialize(iceberg, in);
    return new WatermarkedCommittable<>(committable, checkpointId, watermark);
  }
}
