package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.iceberg.flink.sink.IcebergCommittableSerializer;
import org.junit.jupiter.api.Test;

/**
 * Committables with their watermark survive the committer's state, and a committer state written
 * before committables carried one (Iceberg's serializer alone) is still read.
 */
class WatermarkedCommittableSerializerTest {

  @SuppressWarnings("unchecked")
  private final SimpleVersionedSerializer<Object> iceberg =
      (SimpleVersionedSerializer<Object>)
          (SimpleVersionedSerializer<?>) new IcebergCommittableSerializer();

  private final WatermarkedCommittableSerializer<Object> serializer =
      new WatermarkedCommittableSerializer<>(iceberg);

  @Test
  void readsWhatItWrote() throws IOException {
    Object committable = iceberg.deserialize(iceberg.getVersion(), icebergBytes(42));
    WatermarkedCommittable<Object> marked =
        new WatermarkedCommittable<>(committable, 42, 1_764_000_000_000L);

    WatermarkedCommittable<Object> read =
        serializer.deserialize(serializer.getVersion(), serializer.serialize(marked));

    assertThat(read.checkpointId()).isEqualTo(42);
    assertThat(read.watermark()).isEqualTo(1_764_000_000_000L);
    assertThat(iceberg.serialize(read.committable())).isEqualTo(icebergBytes(42));
  }

  @Test
  void readsIcebergsOwnCommittableAsOneWithoutAWatermark() throws IOException {
    WatermarkedCommittable<Object> read =
        serializer.deserialize(iceberg.getVersion(), icebergBytes(7));

    assertThat(read.checkpointId()).isEqualTo(Long.MIN_VALUE);
    assertThat(read.watermark()).isEqualTo(Long.MIN_VALUE);
    assertThat(iceberg.serialize(read.committable())).isEqualTo(icebergBytes(7));
  }

  /** A committable as Iceberg 1.11's serializer writes it: job, operator, checkpoint, manifest. */
  private static byte[] icebergBytes(long checkpointId) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    out.writeUTF("6f0b1b2c3d4e5f60718293a4b5c6d7e8");
    out.writeUTF("operator-1");
    out.writeLong(checkpointId);
    byte[] manifest = {1, 2, 3, 4};
    out.writeInt(manifest.length);
    out.write(manifest);
    return out.getCopyOfBuffer();
  }
}
