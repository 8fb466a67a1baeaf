package dev.tally.ports.types;

import dev.tally.domain.transaction.SourcedTransaction;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * The type information of the domain types that travel between operators, each backed by a
 * hand-written serializer instead of Flink's reflective record serializer (which reads fields and
 * calls the canonical constructor through reflection on every record).
 */
public final class TallyTypes {

  /** An accepted transaction with its source record, as it crosses the keyed shuffle. */
  public static final TypeInformation<SourcedTransaction> SOURCED_TRANSACTION =
      new SerializerTypeInfo<>(SourcedTransaction.class, SourcedTransactionSerializer.INSTANCE);

  private TallyTypes() {}
}
