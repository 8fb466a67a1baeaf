package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompareTableTest {

  /** A throughput result of {@code records} in {@code seconds}, with the given status. */
  private static LegResult throughput(String leg, String status, long records, double seconds) {
    return new LegResult(leg, status, "checked", records, seconds, seconds + 5, 10, 500, 3, 8, 0);
  }

  private static LatencyFigure ok(long p50, long p99) {
    return new LatencyFigure("ok", p50, p99, p99 + 100, 20, "measured");
  }

  private static CompareTable table(CompareTable.Row... rows) {
    return new CompareTable(Map.of("cores", "2"), Map.of("events", 1000), List.of(rows));
  }

  private static final CompareTable.Row TALLY =
      new CompareTable.Row(
          "tally", throughput("tally", "ok", 1_000_000, 10), ok(8_000, 12_000), ok(2_000, 3_000));

  @Test
  void ratiosSayHowManyTimesBetterTallyIsOnEachFigure() {
    CompareTable t =
        table(
            new CompareTable.Row(
                "spark",
                throughput("spark", "ok", 1_000_000, 25),
                ok(20_000, 30_000),
                ok(20_000, 40_000)),
            TALLY);

    assertThat(t.throughputRatio("spark")).hasValueSatisfying(r -> assertThat(r).isEqualTo(2.5));
    assertThat(t.freshnessRatio("spark")).hasValueSatisfying(r -> assertThat(r).isEqualTo(2.5));
    assertThat(t.recoveryRatio("spark")).hasValueSatisfying(r -> assertThat(r).isEqualTo(10.0));
    assertThat(t.tallyAheadOnAll("spark")).isTrue();
    assertThat(t.markdown())
        .contains("Tally / spark: throughput 2.50×, freshness (p99) 2.50×, recovery (p50) 10.00×")
        .contains("Tally ahead on all three")
        .contains("| spark | 40,000 | ok | 20.00 | 30.00 | ok | 20.00 | 40.10 | ok |");
  }

  @Test
  void aWrongLegGetsNoRatioAndIsMarkedWrong() {
    CompareTable t =
        table(
            new CompareTable.Row(
                "spark",
                throughput("spark", "wrong", 1_000_000, 1),
                ok(20_000, 30_000),
                new LatencyFigure("wrong", 100, 200, 300, 3, "table not exact")),
            TALLY);

    assertThat(t.throughputRatio("spark")).isEmpty();
    assertThat(t.recoveryRatio("spark")).isEmpty();
    assertThat(t.freshnessRatio("spark")).isPresent();
    assertThat(t.tallyAheadOnAll("spark")).isFalse();
    assertThat(t.markdown()).contains("| spark | 1,000,000 | wrong |").contains("| wrong |");
    assertThat(t.json()).contains("\"throughput\": null").contains("\"ahead_on_all\": false");
  }

  @Test
  void behindOnOneFigureIsNotAheadOnAll() {
    CompareTable t =
        table(
            new CompareTable.Row(
                "spark",
                throughput("spark", "ok", 1_000_000, 25),
                ok(5_000, 6_000),
                ok(20_000, 40_000)),
            TALLY);

    assertThat(t.freshnessRatio("spark")).hasValueSatisfying(r -> assertThat(r).isEqualTo(0.5));
    assertThat(t.tallyAheadOnAll("spark")).isFalse();
  }

  @Test
  void aLegThatRanButGaveNoSampleFailedItIsNotJustUnmeasured() {
    LatencyFigure none = LatencyFigure.of(List.of(), true, "5 windows never readable");

    assertThat(none.status()).isEqualTo("failed");
    assertThat(none.measured()).isFalse();
    assertThat(none.note()).contains("5 windows never readable");
  }

  @Test
  void percentilesAreNearestRankAndAWrongTableMarksTheFigureWrong() {
    LatencyFigure f = LatencyFigure.of(List.of(100L, 200L, 300L, 400L), false, "table WRONG");

    assertThat(f.status()).isEqualTo("wrong");
    assertThat(f.p50Millis()).isEqualTo(200);
    assertThat(f.p99Millis()).isEqualTo(400);
    assertThat(f.maxMillis()).isEqualTo(400);
    assertThat(f.samples()).isEqualTo(4);
  }

  @Test
  void aFigureNotMeasuredShowsAsSuchWithItsReason() {
    CompareTable t =
        table(
            new CompareTable.Row(
                "sql",
                throughput("sql", "ok", 1_000_000, 8),
                LatencyFigure.notMeasured("fixed 1-hour windows"),
                LatencyFigure.notMeasured("fixed 1-hour windows")),
            TALLY);

    assertThat(t.throughputRatio("sql")).hasValueSatisfying(r -> assertThat(r).isEqualTo(0.8));
    assertThat(t.freshnessRatio("sql")).isEmpty();
    assertThat(t.markdown())
        .contains("| sql | 125,000 | ok | – | – | not measured | – | – | not measured |")
        .contains("freshness (p99) n/a")
        .contains("freshness: fixed 1-hour windows");
    assertThat(t.json()).contains("\"freshness_p99\": null");
  }
}
