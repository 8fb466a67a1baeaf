package dev.tally.adapters.kafka;

import org.apache.flink.connector.base.DeliveryGuarantee;

/** How the anomaly topic is written (docs/behaviour.md "Anomalies"). */
public enum AnomalyDelivery {
  /**
   * In Kafka transactions committed on completed checkpoints, like the dead letters: a {@code
   * read_committed} consumer sees each alert once, a checkpoint interval after its decision.
   */
  EXACTLY_ONCE(DeliveryGuarantee.EXACTLY_ONCE),
  /**
   * As soon as decided, flushed on every checkpoint: lower latency, but a recovery can send an
   * alert again; consumers drop repeats by {@code transaction_id}.
   */
  AT_LEAST_ONCE(DeliveryGuarantee.AT_LEAST_ONCE);

  private final DeliveryGuarantee guarantee;

  AnomalyDelivery(DeliveryGuarantee guarantee) {
    this.guarantee = guarantee;
  }

  DeliveryGuarantee guarantee() {
    return guarantee;
  }
}
