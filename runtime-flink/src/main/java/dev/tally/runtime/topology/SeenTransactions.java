package dev.tally.runtime.topology;

import dev.tally.domain.spending.SeenTransaction;
import dev.tally.domain.transaction.Transaction;
import java.util.Iterator;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;

/**
 * What the aggregator remembers of the current user's counted transactions, by id, for the dedupe
 * retention of event time. Forgetting runs on hour-aligned event-time timers, so one timer serves
 * the windows of a whole hour and an id is kept at least the retention after its window's end.
 */
final class SeenTransactions {

  private static final long CLEANUP_GRANULARITY = 3_600_000L;

  private final MapState<String, SeenTransaction> state;
  private final long retention;

  SeenTransactions(MapState<String, SeenTransaction> state, long retentionMillis) {
    this.state = state;
    this.retention = retentionMillis;
  }

  /** What is remembered of a counted transaction with this id, {@code null} for none. */
  SeenTransaction get(String transactionId) throws Exception {
    return state.get(transactionId);
  }

  void remember(Transaction tx) throws Exception {
    state.put(tx.transactionId(), SeenTransaction.of(tx));
  }

  /**
   * The first hour-aligned instant after the ids of a window ending at {@code windowEnd} expire, so
   * the windows of one hour share one timer.
   */
  long cleanupTime(long windowEnd) {
    long expiry = windowEnd + retention;
    return expiry - Math.floorMod(expiry, CLEANUP_GRANULARITY) + CLEANUP_GRANULARITY;
  }

  /** Forgets what expired by {@code timestamp}, if it is a time {@link #cleanupTime} gives. */
  void cleanUpAt(long timestamp) throws Exception {
    if (Math.floorMod(timestamp, CLEANUP_GRANULARITY) != 0) {
      return;
    }
    Iterator<Map.Entry<String, SeenTransaction>> entries = state.iterator();
    while (entries.hasNext()) {
      if (entries.next().getValue().eventTimeMillis() < timestamp - retention) {
        entries.remove();
      }
    }
  }
}
