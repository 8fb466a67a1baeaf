package dev.tally.ports.out;

import dev.tally.domain.anomaly.Anomaly;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Where anomalous transactions leave Tally (docs/behaviour.md "Anomalies"): each is decided once,
 * so a sink writes each once.
 *
 * <p>Contract: every operator added has a stable uid, and what the sink delivers matches what it
 * promises across failures (exactly once on completed checkpoints, or at least once where a sink
 * says so).
 */
public interface AnomalySink {

  /**
   * Attaches the sink to the end of {@code anomalies}.
   *
   * @param anomalies the anomalous transactions, each once
   */
  void attach(DataStream<Anomaly> anomalies);
}
