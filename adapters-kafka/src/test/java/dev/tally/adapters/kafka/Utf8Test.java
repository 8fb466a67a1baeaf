package dev.tally.adapters.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Utf8Test {

  private static boolean jdkSaysValid(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  @Test
  void agreesWithTheJdkDecoderOnRandomBytes() {
    SplittableRandom random = new SplittableRandom(20261129);
    int invalid = 0;
    for (int i = 0; i < 200_000; i++) {
      byte[] bytes = new byte[random.nextInt(1, 8)];
      for (int k = 0; k < bytes.length; k++) {
        // Bias towards the interesting range: lead and continuation bytes.
        bytes[k] =
            (byte) (random.nextBoolean() ? random.nextInt(0x80, 0x100) : random.nextInt(0, 0x100));
      }
      boolean expected = jdkSaysValid(bytes);
      assertThat(Utf8.firstInvalidByte(bytes) < 0)
          .as("valid %s", java.util.HexFormat.of().formatHex(bytes))
          .isEqualTo(expected);
      if (!expected) {
        invalid++;
      }
    }
    assertThat(invalid).as("the sample contains invalid input").isGreaterThan(10_000);
  }

  @Test
  void acceptsEveryScalarValueEncodedByTheJdk() {
    for (int cp = 0; cp <= 0x10FFFF; cp += (cp < 0x800 ? 1 : 7)) {
      if (cp >= 0xD800 && cp <= 0xDFFF) {
        continue;
      }
      byte[] bytes = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
      assertThat(Utf8.firstInvalidByte(bytes)).as("U+%04X", cp).isEqualTo(-1);
    }
  }

  @Test
  void pointsAtTheFirstBadByte() {
    assertThat(Utf8.firstInvalidByte(new byte[] {'a', 'b', (byte) 0xC0, (byte) 0x80})).isEqualTo(2);
    assertThat(
            Utf8.firstInvalidByte(new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}))
        .isZero();
  }
}
