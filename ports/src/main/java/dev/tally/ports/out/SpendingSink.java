package dev.tally.ports.out;

import dev.tally.domain.spending.WindowedSpending;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Where spending aggregates leave Tally. Rows are upserts on (user, currency, window start): a
 * later row for the same key replaces the earlier one.
 *
 * <p>Contract: the sink makes rows visible only when the checkpoint that covers them completes
 * (exactly once across failures, docs/behaviour.md "Exactly once"), and every operator it adds has
 * a stable uid.
 */
public interface SpendingSink {

  /**
   * Attaches the sink to the end of {@code aggregates}.
   *
   * @param aggregates the windowed aggregates to write, possibly several versions per key over time
   */
  void attach(DataStream<WindowedSpending> aggregates);
}
