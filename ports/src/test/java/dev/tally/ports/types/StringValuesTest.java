package dev.tally.ports.types;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.types.StringValue;
import org.junit.jupiter.api.Test;

/** {@link StringValues#read} reads what {@link StringValue#writeString} wrote, and only that. */
class StringValuesTest {

  @Test
  void readsEveryStringStringValueWritesAndStopsWhereItEnds() throws IOException {
    List<String> strings = new ArrayList<>();
    strings.add(null);
    strings.add("");
    strings.add("tx-1");
    strings.add("EUR");
    strings.add("ü");
    strings.add("aü€b");
    strings.add("abc\u007f\u0080\u00ff\u0100");
    strings.add("\uD83D\uDE00 emoji");
    strings.add("x".repeat(127));
    strings.add("x".repeat(128));
    strings.add("y".repeat(5_000) + "é");
    SplittableRandom random = new SplittableRandom(7);
    for (int n = 0; n < 200; n++) {
      char[] chars = new char[random.nextInt(40)];
      for (int i = 0; i < chars.length; i++) {
        chars[i] = (char) (random.nextBoolean() ? random.nextInt(0x80) : random.nextInt(0x10000));
      }
      strings.add(new String(chars));
    }
    DataOutputSerializer out = new DataOutputSerializer(64);
    for (String s : strings) {
      StringValue.writeString(s, out);
      out.writeInt(0x5eed);
    }
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    for (String s : strings) {
      assertThat(StringValues.read(in)).isEqualTo(s);
      assertThat(in.readInt()).isEqualTo(0x5eed);
    }
    assertThat(in.available()).isZero();
  }
}
