package dev.tally.it.eo;

import dev.tally.it.anomaly.AnomalyReport;
import dev.tally.it.anomaly.RawTransaction;
import dev.tally.it.anomaly.SpecAnomalyOracle;
import dev.tally.it.anomaly.TransactionKey;
import dev.tally.it.oracle.Input;
import dev.tally.it.oracle.SpendingKey;
import dev.tally.it.oracle.Totals;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * The records of {@link Scenario#IDLE_SUBTASK_FAILOVER}, on two partitions, in three phases, and
 * what a failure-free run makes of them (behaviour.md's rules, worked out here by hand).
 *
 * <ol>
 *   <li>10:00–11:10 on both partitions, from the users of both aggregator subtasks ("quiet" users
 *       only before 11:00): the hour 10:00 closes and its timers fire.
 *   <li>11:11–12:10 on both partitions, from the "busy" subtask's users only: the hour 11:00
 *       closes; the quiet subtask receives these watermarks and no element or timer.
 *   <li>After partition 1 has gone silent: on partition 0, one event of 11:30 from each quiet user,
 *       {@code LATE} in a failure-free run (the watermark passed 12:00), then on-time events of the
 *       busy users at 12:11–12:13.
 * </ol>
 *
 * With anomalies on, the busy users' last minutes of 11:00 stand out from their baseline of 10:00
 * (docs/behaviour.md "Anomalies"; worked out by {@link SpecAnomalyOracle} over the accepted
 * events).
 */
final class IdleSubtaskData {

  static final Instant TEN = Instant.parse("2026-02-01T10:00:00Z");
  static final Instant ELEVEN = TEN.plus(Duration.ofHours(1));

  private final List<String> quiet = new ArrayList<>();
  private final List<String> busy = new ArrayList<>();
  private final List<Input> hourTen = new ArrayList<>();
  private final List<Input> hourEleven = new ArrayList<>();
  private final List<Input> afterTheFailover = new ArrayList<>();
  private final Map<SpendingKey, long[]> rows = new TreeMap<>();
  private final List<RawTransaction> accepted = new ArrayList<>();
  private int ids;

  /** Users split by the aggregator subtask they are keyed to at {@code parallelism}. */
  IdleSubtaskData(int maxParallelism, int parallelism) {
    for (int i = 0; quiet.size() < 3 || busy.size() < 3; i++) {
      String user = "idle-user-" + i;
      int subtask =
          KeyGroupRangeAssignment.assignKeyToParallelOperator(user, maxParallelism, parallelism);
      List<String> side = subtask == 0 ? quiet : busy;
      if (side.size() < 3) {
        side.add(user);
      }
    }
    for (int m = 0; m <= 70; m++) {
      hourTen.add(event(0, busy.get(m % 3), m, null));
      hourTen.add(event(1, busy.get((m + 1) % 3), m, null));
      if (m < 60) {
        hourTen.add(event(0, quiet.get(m % 3), m, null));
      }
    }
    for (int m = 71; m <= 130; m++) {
      hourEleven.add(event(0, busy.get(m % 3), m, null));
      hourEleven.add(event(1, busy.get((m + 1) % 3), m, null));
    }
    for (String user : quiet) {
      afterTheFailover.add(event(0, user, 90, "LATE"));
    }
    for (int m = 131; m <= 133; m++) {
      afterTheFailover.add(event(0, busy.get(m % 3), m, null));
    }
  }

  List<Input> hourTen() {
    return hourTen;
  }

  List<Input> hourEleven() {
    return hourEleven;
  }

  List<Input> afterTheFailover() {
    return afterTheFailover;
  }

  /** Records of the first two phases on partition 0: what its source subtask has counted then. */
  long beforeTheFailoverOnPartitionZero() {
    return hourTen.stream().filter(i -> i.partition() == 0).count()
        + hourEleven.stream().filter(i -> i.partition() == 0).count();
  }

  /** The table of a failure-free run. */
  Map<SpendingKey, Totals> rows() {
    Map<SpendingKey, Totals> table = new TreeMap<>();
    rows.forEach((key, totals) -> table.put(key, new Totals(totals[0], totals[1])));
    return table;
  }

  /** The anomalies of a failure-free run that a watermark of {@code watermark} has decided. */
  Map<TransactionKey, AnomalyReport> anomalies(long watermark) {
    return SpecAnomalyOracle.reports(SpecAnomalyOracle.defaults().verdicts(accepted), watermark);
  }

  private Input event(int partition, String user, int minutesAfterTen, String rejected) {
    Instant at = TEN.plus(Duration.ofMinutes(minutesAfterTen));
    long amount = 100 + minutesAfterTen;
    String id = "idle-tx-" + ids++;
    String json =
        String.format(
            "{\"transaction_id\":\"%s\",\"user_id\":\"%s\",\"amount_cents\":%d,"
                + "\"currency\":\"EUR\",\"event_timestamp\":\"%s\"}",
            id, user, amount, at);
    if (rejected == null) {
      long[] totals =
          rows.computeIfAbsent(
              new SpendingKey(user, "EUR", at.truncatedTo(ChronoUnit.HOURS)), k -> new long[2]);
      totals[0] += amount;
      totals[1]++;
      accepted.add(RawTransaction.of(id, user, "EUR", amount, at));
    }
    return new Input(
        partition,
        user.getBytes(StandardCharsets.UTF_8),
        json.getBytes(StandardCharsets.UTF_8),
        at.toEpochMilli() + 1_000,
        rejected);
  }
}
