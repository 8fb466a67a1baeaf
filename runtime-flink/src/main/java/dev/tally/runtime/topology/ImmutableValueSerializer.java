package dev.tally.runtime.topology;

import java.io.IOException;
import java.math.BigInteger;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What the serializers of the anomaly state's immutable values share: no copies, no fixed length,
 * no instance to reuse, and the exact integers of a baseline written as length-prefixed two's
 * complement bytes ({@link BigInteger#toByteArray()}), which a sum near {@code Long.MAX_VALUE}
 * needs and a small one keeps short.
 *
 * @param <T> the immutable value type
 */
abstract class ImmutableValueSerializer<T> extends TypeSerializerSingleton<T> {

  private static final long serialVersionUID = 1L;

  @Override
  public final boolean isImmutableType() {
    return true;
  }

  /** No value is reused: readers always build a new one. */
  @Override
  public final T createInstance() {
    return null;
  }

  @Override
  public final T copy(T from) {
    return from;
  }

  @Override
  public final T copy(T from, T reuse) {
    return from;
  }

  @Override
  public final int getLength() {
    return -1;
  }

  @Override
  public final T deserialize(T reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public final void copy(DataInputView in, DataOutputView out) throws IOException {
    serialize(deserialize(in), out);
  }

  static void writeBigInteger(BigInteger value, DataOutputView out) throws IOException {
    byte[] bytes = value.toByteArray();
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  static BigInteger readBigInteger(DataInputView in) throws IOException {
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    return new BigInteger(bytes);
  }
}
