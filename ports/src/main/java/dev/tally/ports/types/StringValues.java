package dev.tally.ports.types;

import java.io.DataInput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.types.StringValue;

/**
 * Reads strings in {@link StringValue}'s encoding (a variable-length length plus one, 0 for null,
 * then each UTF-16 unit as a variable-length integer) into a Latin-1 {@link String} directly when
 * every unit is below 0x80, as ids, user ids, currencies and topics are.
 *
 * <p>Why not {@link StringValue#readString}: it decodes into a thread-local {@code char[]}, and the
 * {@code String(char[], …)} constructor then scans and compresses that buffer again. On the
 * aggregator's input, which reads four strings per shuffled transaction, the thread-local lookup
 * alone was 4.8 % of the aggregator thread's samples in a flight recording. Here an ASCII string
 * costs one {@code byte[]} that the {@code String} copies once; other strings fall back to a {@code
 * char[]}. The bytes read are the same, so the wire format is unchanged.
 */
public final class StringValues {

  private StringValues() {}

  /** What {@link StringValue#writeString} wrote, {@code null} included. */
  public static String read(DataInput in) throws IOException {
    int len = in.readUnsignedByte();
    if (len == 0) {
      return null;
    }
    if (len >= 0x80) {
      len = continueVarInt(in, len);
    }
    len--;
    byte[] latin = new byte[len];
    for (int i = 0; i < len; i++) {
      int c = in.readUnsignedByte();
      if (c >= 0x80) {
        return readWide(in, latin, i, continueVarInt(in, c), len);
      }
      latin[i] = (byte) c;
    }
    return new String(latin, 0, len, StandardCharsets.ISO_8859_1);
  }

  /** The rest of a string whose unit {@code at} is {@code first} and not ASCII. */
  private static String readWide(DataInput in, byte[] latin, int at, int first, int len)
      throws IOException {
    char[] chars = new char[len];
    for (int i = 0; i < at; i++) {
      chars[i] = (char) latin[i];
    }
    chars[at] = (char) first;
    for (int i = at + 1; i < len; i++) {
      int c = in.readUnsignedByte();
      chars[i] = (char) (c >= 0x80 ? continueVarInt(in, c) : c);
    }
    return new String(chars);
  }

  /** A variable-length integer whose first byte, {@code first}, has its high bit set. */
  private static int continueVarInt(DataInput in, int first) throws IOException {
    int value = first & 0x7f;
    int shift = 7;
    int b;
    while ((b = in.readUnsignedByte()) >= 0x80) {
      value |= (b & 0x7f) << shift;
      shift += 7;
    }
    return value | b << shift;
  }
}
