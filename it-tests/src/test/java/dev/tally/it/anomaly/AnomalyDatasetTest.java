package dev.tally.it.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.oracle.Input;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The anomaly dataset holds what it promises, and its spikes are the anomalies. */
class AnomalyDatasetTest {

  private static final AnomalyDataset.Shape SHAPE = AnomalyDataset.Shape.DEFAULT;

  @Test
  void theSameSeedGivesTheSameRecordsAndAnotherSeedOthers() {
    List<Input> once = AnomalyDataset.generate(11, SHAPE).inputs();
    List<Input> again = AnomalyDataset.generate(11, SHAPE).inputs();
    List<Input> other = AnomalyDataset.generate(12, SHAPE).inputs();

    assertThat(values(again)).isEqualTo(values(once));
    assertThat(values(other)).isNotEqualTo(values(once));
  }

  @Test
  void itHoldsEveryKindOfRecordItPromises() {
    AnomalyDataset data = AnomalyDataset.generate(5, SHAPE);
    List<RawTransaction> txs = data.transactions();
    long distinct = txs.stream().map(RawTransaction::id).distinct().count();
    Map<String, List<RawTransaction>> byKey =
        txs.stream().collect(Collectors.groupingBy(RawTransaction::key));

    assertThat(byKey.keySet())
        .as("normal keys, the four edge keys, and the late users")
        .hasSize(SHAPE.users() * SHAPE.currenciesPerUser() + 4 + 4);
    assertThat(data.exactDuplicates()).isPositive().isEqualTo(txs.size() - (int) distinct);
    assertThat(data.refunds()).isPositive();
    assertThat(txs)
        .filteredOn(t -> t.amountCents() <= 0)
        .hasSize(data.refunds() + refundCopies(data));
    assertThat(data.late()).hasSize(4);
    assertThat(data.rejectedByReason())
        .containsEntry("LATE", 4)
        .containsKeys("MALFORMED", "MISSING_FIELD")
        .doesNotContainKeys("FUTURE_TIMESTAMP", "INVALID_FIELD");
    assertThat(data.inputs())
        .hasSize(txs.size() + data.rejectedByReason().values().stream().mapToInt(i -> i).sum() - 4);
    // Every normal key's traffic covers more than the 7-day baseline.
    byKey.forEach(
        (key, rows) -> {
          if (key.startsWith("user-")) {
            long first = rows.stream().mapToLong(RawTransaction::eventMillis).min().orElseThrow();
            long last = rows.stream().mapToLong(RawTransaction::eventMillis).max().orElseThrow();
            assertThat(Duration.ofMillis(last - first)).as(key).isGreaterThan(Duration.ofDays(8));
          }
        });
    // Two transactions of one key in one millisecond: ties.
    assertThat(
            byKey.values().stream()
                .mapToLong(
                    rows ->
                        rows.size() - rows.stream().map(t -> t.eventMillis()).distinct().count())
                .sum())
        .isGreaterThan(data.exactDuplicates());
  }

  @Test
  void eventsAreOutOfOrderOnlyWithinTheWatermarkBoundButTheLateOnes() {
    AnomalyDataset data = AnomalyDataset.generate(5, SHAPE);
    Map<Integer, Long> maxSoFar = new HashMap<>();
    Map<String, Long> behindByUser = new HashMap<>();
    int outOfOrder = 0;
    for (Input in : data.inputs()) {
      String json = new String(in.value(), StandardCharsets.UTF_8);
      if (!json.contains("\"event_timestamp\":\"") || !json.endsWith("}")) {
        continue; // a record the source rejects for its form
      }
      long eventTime = eventTime(json);
      assertThat(eventTime)
          .as("never after its record timestamp")
          .isLessThanOrEqualTo(in.timestamp());
      long max = maxSoFar.merge(in.partition(), eventTime, Math::max);
      if (eventTime < max) {
        outOfOrder++;
        behindByUser.merge(
            new String(in.key(), StandardCharsets.UTF_8), max - eventTime, Math::max);
      }
    }
    assertThat(outOfOrder).isGreaterThan(100);
    behindByUser.forEach(
        (user, behind) -> {
          if (user.startsWith("late-")) {
            assertThat(behind).as(user).isGreaterThan(Duration.ofDays(1).toMillis());
          } else {
            assertThat(behind).as(user).isLessThan(4_000);
          }
        });
    assertThat(behindByUser).containsKeys("late-0", "late-1", "late-2", "late-3");
  }

  @Test
  void theAnomaliesAreTheSpikesWhoseBaselineIsLargeAndHoldsNoOtherSpike() {
    for (long seed : new long[] {1, 2, 3, 4, 5}) {
      AnomalyDataset data = AnomalyDataset.generate(seed, SHAPE);
      Map<TransactionKey, SpecAnomalyOracle.Verdict> verdicts =
          SpecAnomalyOracle.defaults().verdicts(data.transactions());
      Set<TransactionKey> anomalies = data.expectedAnomalies().keySet();

      assertThat(data.spikes()).as("seed %d", seed).hasSizeGreaterThan(100);
      assertThat(data.spikes())
          .as("seed %d: every anomaly is a spike", seed)
          .containsAll(anomalies);
      int clean = 0;
      int small = 0;
      for (TransactionKey spike : data.spikes()) {
        SpecAnomalyOracle.Verdict v = verdicts.get(spike);
        if (v.baseline().count() < SpecAnomalyOracle.MIN_BASELINE) {
          small++;
          assertThat(anomalies)
              .as("seed %d: a spike without a baseline", seed)
              .doesNotContain(spike);
        } else if (!otherSpikeInBaseline(data, verdicts, v.transaction())) {
          clean++;
          assertThat(anomalies).as("seed %d: %s", seed, v).contains(spike);
        }
      }
      assertThat(clean).as("seed %d", seed).isGreaterThan(20);
      assertThat(small).as("seed %d", seed).isPositive();
      // The edge keys: σ = 0 gives a null score.
      Anomaly steady =
          data.expectedAnomalies().get(new TransactionKey("steady-0", "steady-" + seed + "-spike"));
      assertThat(steady).isNotNull();
      assertThat(steady.score()).isNull();
      assertThat(steady.baselineStddevCents()).isZero();
      assertThat(anomalies).as("seed %d", seed).anyMatch(k -> k.userId().equals("precise-0"));
    }
  }

  private static boolean otherSpikeInBaseline(
      AnomalyDataset data,
      Map<TransactionKey, SpecAnomalyOracle.Verdict> verdicts,
      RawTransaction t) {
    long end = Baselines.hourOf(t.eventMillis());
    long start = end - SpecAnomalyOracle.BASELINE_HOURS * Baselines.HOUR_MILLIS;
    return data.spikes().stream()
        .map(verdicts::get)
        .map(SpecAnomalyOracle.Verdict::transaction)
        .anyMatch(
            s -> s.key().equals(t.key()) && s.eventMillis() >= start && s.eventMillis() < end);
  }

  private static int refundCopies(AnomalyDataset data) {
    List<RawTransaction> txs = data.transactions();
    return (int)
        (txs.stream().filter(t -> t.amountCents() <= 0).count()
            - txs.stream()
                .filter(t -> t.amountCents() <= 0)
                .map(RawTransaction::id)
                .distinct()
                .count());
  }

  private static long eventTime(String json) {
    int at = json.indexOf("\"event_timestamp\":\"") + "\"event_timestamp\":\"".length();
    String sql = json.substring(at, json.indexOf('"', at));
    return java.time.LocalDateTime.parse(sql.replace(' ', 'T'))
        .toInstant(java.time.ZoneOffset.UTC)
        .toEpochMilli();
  }

  private static List<String> values(List<Input> inputs) {
    return inputs.stream()
        .map(
            i ->
                i.partition()
                    + " "
                    + i.timestamp()
                    + " "
                    + new String(i.value(), StandardCharsets.UTF_8))
        .toList();
  }
}
