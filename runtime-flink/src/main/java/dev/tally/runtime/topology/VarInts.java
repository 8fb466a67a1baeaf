package dev.tally.runtime.topology;

import java.io.IOException;
import java.math.BigInteger;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Variable-length integers for compact state values: 7 bits a byte, low bits first, the high bit
 * saying another byte follows (small values cost one byte); signed values zig-zag encoded so that
 * small negative ones stay short too.
 */
final class VarInts {

  private VarInts() {}

  /** Writes {@code value} as an unsigned 64-bit number: 1 byte below 128, at most 10. */
  static void writeUnsigned(long value, DataOutputView out) throws IOException {
    long rest = value;
    while ((rest & ~0x7FL) != 0) {
      out.writeByte((int) ((rest & 0x7F) | 0x80));
      rest >>>= 7;
    }
    out.writeByte((int) rest);
  }

  static long readUnsigned(DataInputView in) throws IOException {
    long value = 0;
    int shift = 0;
    int b;
    do {
      if (shift > 63) {
        throw new IOException("a variable-length integer longer than 10 bytes");
      }
      b = in.readUnsignedByte();
      value |= (long) (b & 0x7F) << shift;
      shift += 7;
    } while ((b & 0x80) != 0);
    return value;
  }

  /** Writes {@code value} zig-zag encoded: 0, -1, 1, -2 … cost one byte each, up to ±63. */
  static void writeSigned(long value, DataOutputView out) throws IOException {
    writeUnsigned((value << 1) ^ (value >> 63), out);
  }

  static long readSigned(DataInputView in) throws IOException {
    long zigZag = readUnsigned(in);
    return (zigZag >>> 1) ^ -(zigZag & 1);
  }

  /** Reads a count of elements to follow, refusing one no array could hold. */
  static int readCount(DataInputView in) throws IOException {
    long count = readUnsigned(in);
    if (count < 0 || count > Integer.MAX_VALUE - 8) {
      throw new IOException("a corrupt count: " + count);
    }
    return (int) count;
  }

  /**
   * Writes an exact integer as its length (unsigned) and two's complement bytes ({@link
   * BigInteger#toByteArray()}): a sum of squares near {@code Long.MAX_VALUE}² needs them, a small
   * sum keeps to a few bytes.
   */
  static void writeBigInteger(BigInteger value, DataOutputView out) throws IOException {
    byte[] bytes = value.toByteArray();
    writeUnsigned(bytes.length, out);
    out.write(bytes);
  }

  static BigInteger readBigInteger(DataInputView in) throws IOException {
    byte[] bytes = new byte[readCount(in)];
    in.readFully(bytes);
    return new BigInteger(bytes);
  }
}
