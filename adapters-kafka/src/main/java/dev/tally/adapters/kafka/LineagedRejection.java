package dev.tally.adapters.kafka;

import dev.tally.domain.rejection.RejectedRecord;
import java.util.Objects;

/**
 * A rejection on its way to the dead-letter topic, with the lineage of the job state it comes from
 * ({@link DeadLetterHeaders#LINEAGE}).
 *
 * @param rejected the rejection
 * @param lineage the lineage id, set by {@link DeadLetterLineage}
 */
public record LineagedRejection(RejectedRecord rejected, String lineage) {
  public LineagedRejection {
    Objects.requireNonNull(rejected, "rejected");
    Objects.requireNonNull(lineage, "lineage");
  }
}
