package dev.tally.runtime.topology;

import dev.tally.domain.anomaly.Anomaly;
import dev.tally.domain.spending.OpenWindow;
import dev.tally.domain.spending.SeenIds;
import dev.tally.domain.spending.SeenTransaction;
import dev.tally.ports.types.SerializerTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** The type information of the aggregator's state values, each with its dedicated serializer. */
final class StateTypes {

  /** The value of the dedupe map state of releases before {@link #SEEN_IDS}: read to migrate. */
  static final TypeInformation<SeenTransaction> SEEN_TRANSACTION =
      new SerializerTypeInfo<>(SeenTransaction.class, SeenTransactionSerializer.INSTANCE);

  /** The per-user value state of the dedupe memory. */
  static final TypeInformation<SeenIds> SEEN_IDS =
      new SerializerTypeInfo<>(SeenIds.class, SeenIdsSerializer.INSTANCE);

  /** The per-user value state of open windows. */
  static final TypeInformation<OpenWindow[]> OPEN_WINDOWS =
      new SerializerTypeInfo<>(OpenWindow[].class, OpenWindowsSerializer.INSTANCE);

  /** One user's whole anomaly state: baselines and waiting transactions. */
  static final TypeInformation<UserBaselines> USER_BASELINES =
      new SerializerTypeInfo<>(UserBaselines.class, UserBaselinesSerializer.INSTANCE);

  /** An anomaly, on the aggregator's side output to the anomaly sinks. */
  static final TypeInformation<Anomaly> ANOMALY =
      new SerializerTypeInfo<>(Anomaly.class, AnomalySerializer.INSTANCE);

  private StateTypes() {}
}
