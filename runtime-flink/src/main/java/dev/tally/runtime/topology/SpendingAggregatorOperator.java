package dev.tally.runtime.topology;

import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.transaction.SourcedTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;

/**
 * Runs {@link SpendingAggregator} and closes every open window when the input ends.
 *
 * <p>Why not rely on the final watermark alone: a bounded job (a backfill) that fails over after
 * its sources have read everything restores them as finished, and the aggregator then does not
 * always see {@code Long.MAX_VALUE} as its watermark again (the soak of issue 6 lost the rows of
 * the windows only the final watermark closes, 4 rounds in 30). The end of input itself is always
 * delivered: {@link #endInput} runs when every upstream subtask has ended its data with a drain
 * (the end of a bounded source, or {@code stop --drain}), never for a stop-with-savepoint without
 * drain. It emits what the final watermark would have, and finds nothing when that watermark did
 * arrive.
 */
final class SpendingAggregatorOperator
    extends KeyedProcessOperator<String, SourcedTransaction, WindowedSpending>
    implements BoundedOneInput {

  private static final long serialVersionUID = 1L;

  private final SpendingAggregator aggregator;

  SpendingAggregatorOperator(SpendingAggregator aggregator) {
    super(aggregator);
    this.aggregator = aggregator;
  }

  @Override
  public void endInput() throws Exception {
    // Keys first, then state changes: a backend's key iteration must not see its own updates.
    List<String> users = new ArrayList<>();
    try (Stream<String> keys =
        this.<String>getKeyedStateBackend()
            .getKeys(SpendingAggregator.OPEN_WINDOWS_STATE, VoidNamespace.INSTANCE)) {
      keys.forEach(users::add);
    }
    TimestampedCollector<WindowedSpending> out = new TimestampedCollector<>(output);
    out.eraseTimestamp();
    for (String user : users) {
      setCurrentKey(user);
      aggregator.closeAllWindows(user, out);
    }
  }
}
