package dev.tally.adapters.kafka;

import java.io.Serializable;
import java.util.Objects;

/**
 * What a {@link GuardedKafkaSink} writes, as its metrics and its messages name it: the dead
 * letters, or the anomaly alerts. Both sinks commit Kafka transactions on completed checkpoints
 * with the dead-letter producer's transaction timeout, so a broker that aborts one of their
 * transactions loses records the same way, and {@link LostTransactionGuard} says so the same way.
 *
 * @param records what the transactions hold, plural, for messages, e.g. {@code "dead letters"}
 * @param metricSubgroup the committer's metric group under {@value GuardedKafkaSink#METRIC_GROUP},
 *     e.g. {@code "deadletters"}: the counters are {@code tally.<subgroup>.lost-transactions} and
 *     {@code tally.<subgroup>.fenced-commits}
 * @param continueKey the key that acknowledges a loss, for messages
 * @param prefixSource what sets the transactional-id prefix (a key, or how it is derived), for the
 *     message of a fenced commit
 */
record TransactionalOutput(
    String records, String metricSubgroup, String continueKey, String prefixSource)
    implements Serializable {

  /** The dead-letter topic's. */
  static final TransactionalOutput DEAD_LETTERS =
      new TransactionalOutput(
          "dead letters",
          "deadletters",
          DeadLetterConfig.CONTINUE_AFTER_LOST_TRANSACTIONS.name(),
          DeadLetterConfig.TRANSACTIONAL_ID_PREFIX.name());

  TransactionalOutput {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(metricSubgroup, "metricSubgroup");
    Objects.requireNonNull(continueKey, "continueKey");
    Objects.requireNonNull(prefixSource, "prefixSource");
  }

  /** The full name of one of the committer's counters, as docs and messages give it. */
  String metric(String counter) {
    return GuardedKafkaSink.METRIC_GROUP + "." + metricSubgroup + "." + counter;
  }
}
