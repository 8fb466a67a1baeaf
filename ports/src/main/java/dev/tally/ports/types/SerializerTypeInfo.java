package dev.tally.ports.types;

import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information for a type with a dedicated serializer: an opaque value (no fields Flink could
 * key or project by) whose serializer needs no configuration.
 *
 * @param <T> the type described
 */
public final class SerializerTypeInfo<T> extends TypeInformation<T> {

  private static final long serialVersionUID = 1L;

  private final Class<T> type;
  private final TypeSerializer<T> serializer;

  /**
   * @param type the class described
   * @param serializer its serializer; {@link TypeSerializer#duplicate()} is handed out per use
   */
  public SerializerTypeInfo(Class<T> type, TypeSerializer<T> serializer) {
    this.type = Objects.requireNonNull(type, "type");
    this.serializer = Objects.requireNonNull(serializer, "serializer");
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<T> getTypeClass() {
    return type;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<T> createSerializer(SerializerConfig config) {
    return serializer.duplicate();
  }

  @Override
  public String toString() {
    return type.getSimpleName() + "<" + serializer.getClass().getSimpleName() + ">";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SerializerTypeInfo<?> other
        && other.canEqual(this)
        && type == other.type
        && serializer.equals(other.serializer);
  }

  @Override
  public int hashCode() {
    return 31 * type.hashCode() + serializer.hashCode();
  }

  @Override
  public boolean canEqual(Object o) {
    return o instanceof SerializerTypeInfo;
  }
}
