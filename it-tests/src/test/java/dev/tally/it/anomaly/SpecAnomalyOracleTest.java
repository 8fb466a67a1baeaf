package dev.tally.it.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The contract's rule at its edges, on transactions written out by hand. */
class SpecAnomalyOracleTest {

  /** T's hour; T itself at half past. */
  private static final Instant HOUR = Instant.parse("2026-01-12T10:00:00Z");

  private static final Instant T = HOUR.plus(Duration.ofMinutes(30));

  @Test
  void aboveMeanPlusFourSigmaIsAnomalousAndExactlyOnItIsNot() {
    // 10 × 900 and 10 × 1100: mean 1000, σ exactly 100, so the threshold is exactly 1400.
    List<RawTransaction> baseline = twentyAround1000(HOUR.minus(Duration.ofHours(3)));

    assertThat(anomalous(baseline, 1_400)).isFalse();
    assertThat(anomalous(baseline, 1_401)).isTrue();
    assertThat(new SpecAnomalyOracle(20, new BigDecimal("3.99")).verdicts(with(baseline, 1_400)))
        .as("k = 3.99")
        .hasEntrySatisfying(new TransactionKey("u", "t"), v -> assertThat(v.anomalous()).isTrue());
  }

  @Test
  void nineteenAreTooFew() {
    List<RawTransaction> baseline = twentyAround1000(HOUR.minus(Duration.ofHours(3)));
    baseline.remove(0);
    baseline.remove(0);
    baseline.add(tx("extra", 1_000, HOUR.minus(Duration.ofHours(2))));

    assertThat(baseline).hasSize(19);
    assertThat(anomalous(baseline, 100_000)).isFalse();
  }

  @Test
  void theBaselineIsTheWhole168HoursBeforeTheHourOfT() {
    List<RawTransaction> rows = nineteenAround1000();
    // The first millisecond of the 168th hour before T's is in the baseline, the one before not.
    Instant first = HOUR.minus(Duration.ofHours(168));
    List<RawTransaction> in = new ArrayList<>(rows);
    in.add(tx("edge", 1_000, first));
    List<RawTransaction> out = new ArrayList<>(rows);
    out.add(tx("edge", 1_000, first.minusMillis(1)));
    // T's own hour, before T, is not: the baseline stays at 19.
    List<RawTransaction> ownHour = new ArrayList<>(rows);
    ownHour.add(tx("same-hour", 1_000, HOUR));

    assertThat(anomalous(in, 100_000)).isTrue();
    assertThat(anomalous(out, 100_000)).isFalse();
    assertThat(anomalous(ownHour, 100_000)).isFalse();
  }

  @Test
  void refundsDuplicatesAndLateOnesAreInNoBaseline() {
    List<RawTransaction> rows = nineteenAround1000();
    Instant before = HOUR.minus(Duration.ofHours(1));
    rows.add(tx("refund", -1_000, before));
    rows.add(rows.get(0)); // an exact duplicate
    rows.add(new RawTransaction("late", "u", "EUR", 1_000, before, true)); // rejected as LATE
    rows.add(RawTransaction.of("other-currency", "u", "USD", 1_000, before));

    assertThat(anomalous(rows, 100_000)).isFalse();
    assertThat(
            SpecAnomalyOracle.defaults()
                .verdicts(with(rows, 100_000))
                .get(new TransactionKey("u", "t"))
                .baseline()
                .count())
        .isEqualTo(19);
  }

  @Test
  void theRowCarriesTheExactBaselineAndANullScoreWhenSigmaIsZero() {
    List<RawTransaction> rows = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      rows.add(tx("b" + i, 2_500, HOUR.minus(Duration.ofHours(1 + i))));
    }
    Anomaly steady =
        SpecAnomalyOracle.defaults().anomalies(with(rows, 2_501)).get(new TransactionKey("u", "t"));
    Anomaly spread =
        SpecAnomalyOracle.defaults()
            .anomalies(with(twentyAround1000(HOUR.minusSeconds(60)), 1_600))
            .get(new TransactionKey("u", "t"));

    assertThat(steady).isNotNull();
    assertThat(steady.score()).isNull();
    assertThat(steady.baselineStddevCents()).isZero();
    assertThat(steady.baselineMeanCents()).isEqualTo(2_500.0);
    assertThat(spread.baselineCount()).isEqualTo(20);
    assertThat(spread.baselineMeanCents()).isEqualTo(1_000.0);
    assertThat(spread.baselineStddevCents()).isEqualTo(100.0);
    assertThat(spread.score()).isEqualTo(6.0);
  }

  static List<RawTransaction> twentyAround1000(Instant last) {
    List<RawTransaction> rows = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      rows.add(tx("b" + i, i % 2 == 0 ? 900 : 1_100, last.minus(Duration.ofMinutes(5L * i))));
    }
    return rows;
  }

  /** 19 transactions in the baseline of T, their σ small. */
  private static List<RawTransaction> nineteenAround1000() {
    List<RawTransaction> rows = new ArrayList<>();
    for (int i = 0; i < 19; i++) {
      rows.add(tx("b" + i, 990 + i, HOUR.minus(Duration.ofHours(1 + i))));
    }
    return rows;
  }

  static RawTransaction tx(String id, long amount, Instant at) {
    return RawTransaction.of(id, "u", "EUR", amount, at);
  }

  private static List<RawTransaction> with(List<RawTransaction> baseline, long amount) {
    List<RawTransaction> all = new ArrayList<>(baseline);
    all.add(tx("t", amount, T));
    return all;
  }

  private static boolean anomalous(List<RawTransaction> baseline, long amount) {
    return SpecAnomalyOracle.defaults()
        .anomalies(with(baseline, amount))
        .containsKey(new TransactionKey("u", "t"));
  }
}
