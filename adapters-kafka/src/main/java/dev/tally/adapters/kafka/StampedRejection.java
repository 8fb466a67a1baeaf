package dev.tally.adapters.kafka;

import java.util.Objects;

/**
 * What the dead-letter writer serializes: a rejection with its lineage and the last checkpoint its
 * writer had taken when it wrote it ({@link DeadLetterHeaders#AFTER_CHECKPOINT}). Made in the
 * writer's own task, so it never crosses the network.
 *
 * @param lineaged the rejection and its lineage
 * @param afterCheckpoint the writer's last checkpoint id, {@code 0} before its first
 */
record StampedRejection(LineagedRejection lineaged, long afterCheckpoint) {
  StampedRejection {
    Objects.requireNonNull(lineaged, "lineaged");
  }
}
