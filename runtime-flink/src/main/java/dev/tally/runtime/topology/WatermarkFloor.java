package dev.tally.runtime.topology;

import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;

/**
 * The watermark the aggregator judges lateness by. Watermarks are not part of Flink's checkpoints:
 * after a restore the operator's watermark starts from nothing until the sources emit again, and a
 * replayed record that was late before the failure could be counted. So the operator checkpoints
 * the watermark it has seen (operator state {@code watermark-floor}) and judges against the larger
 * of that floor and the live watermark, which makes the {@code LATE} verdicts of a recovered run
 * those of a failure-free one.
 */
final class WatermarkFloor {

  private final ListState<Long> state;
  private final long floor;
  private long lastSeen = Long.MIN_VALUE;

  private WatermarkFloor(ListState<Long> state, long floor) {
    this.state = state;
    this.floor = floor;
  }

  /** The floor restored from {@code store}, or none for a fresh start. */
  static WatermarkFloor restore(OperatorStateStore store) throws Exception {
    ListState<Long> state =
        store.getUnionListState(new ListStateDescriptor<>("watermark-floor", Long.class));
    // Every subtask saw the same broadcast watermarks; after rescaling, the smallest is one all
    // passed.
    long floor = Long.MIN_VALUE;
    boolean any = false;
    for (Long restored : state.get()) {
      floor = any ? Math.min(floor, restored) : restored;
      any = true;
    }
    return new WatermarkFloor(state, floor);
  }

  /** Records the largest watermark seen so far for the checkpoint being taken. */
  void snapshot() throws Exception {
    state.update(List.of(Math.max(lastSeen, floor)));
  }

  /**
   * The watermark to judge by: the live one, never below what this subtask saw before a restore.
   */
  long observe(long live) {
    if (live > lastSeen) {
      lastSeen = live;
    }
    return Math.max(live, floor);
  }

  /** The floor restored from the checkpoint, {@code Long.MIN_VALUE} for a fresh start. */
  long restoredFloor() {
    return floor;
  }

  /**
   * The largest live watermark seen since the start or restore, {@code Long.MIN_VALUE} for none.
   */
  long lastSeen() {
    return lastSeen;
  }
}
