package dev.tally.runtime.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.spending.OpenWindow;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.junit.jupiter.api.Test;

/** Flink's conformance suite for serializers, over a user's open windows. */
class OpenWindowsSerializerTest extends SerializerTestBase<OpenWindow[]> {

  @Override
  protected TypeSerializer<OpenWindow[]> createSerializer() {
    return OpenWindowsSerializer.INSTANCE;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<OpenWindow[]> getTypeClass() {
    return OpenWindow[].class;
  }

  @Override
  protected OpenWindow[][] getTestData() {
    return new OpenWindow[][] {
      {},
      {new OpenWindow("EUR", 1_764_410_400_000L, 1_999, 1, false, false)},
      {
        new OpenWindow("EUR", 1_764_410_400_000L, -5_000, 3, true, true),
        new OpenWindow("USD", 1_764_410_400_000L, Long.MAX_VALUE, Long.MAX_VALUE, false, true),
        new OpenWindow("GBP", Long.MIN_VALUE, Long.MIN_VALUE, 0, true, true),
      },
      // Not currencies the domain accepts, but the serializer must not depend on that.
      {
        new OpenWindow("", 0, 0, 0, false, false),
        new OpenWindow("\u00e9\u4e2d\ud83d\ude00 long-currency", -3_600_000L, -1, 1, true, true),
      },
    };
  }

  @Test
  void copiesAreNewArraysSoTheHeapBackendCanSnapshotWhileTheJobWrites() {
    OpenWindow[] windows = {new OpenWindow("EUR", 0, 1, 1, false, false)};

    OpenWindow[] copy = OpenWindowsSerializer.INSTANCE.copy(windows);
    windows[0] = new OpenWindow("USD", 0, 2, 2, true, true);

    assertThat(copy).containsExactly(new OpenWindow("EUR", 0, 1, 1, false, false));
    assertThat(OpenWindowsSerializer.INSTANCE.isImmutableType()).isFalse();
  }
}
