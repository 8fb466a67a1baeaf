package dev.tally.it.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.it.anomaly.AnomalyReport;
import dev.tally.it.anomaly.TransactionKey;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The verdict's count of the anomaly outputs, per output, on anomalies written out by hand. */
class ExactlyOnceVerdictTest {

  private static final AnomalyReport A = anomaly("a", "1000.0000", 40.0);
  private static final AnomalyReport B = anomaly("b", "1000.0000", 41.0);
  private static final Map<TransactionKey, AnomalyReport> EXPECTED = Map.of(A.id(), A, B.id(), B);

  @Test
  void eachAnomalyOnceInEachOutputWithItsValuesIsExact() {
    // A decimal's trailing zeros are no difference of value: JSON numbers need not keep them.
    AnomalyReport alertOfA = anomaly("a", "1000", 40.0);

    ExactlyOnceVerdict verdict = compare(List.of(B, A), List.of(alertOfA, B));

    assertThat(verdict.exact()).as(verdict.summary()).isTrue();
  }

  @Test
  void eachOutputCountsWhatItLostDoubledHoldsOtherwiseOrHoldsWithoutCause() {
    AnomalyReport otherScore = anomaly("a", "1000.0000", 40.000000000001);
    AnomalyReport unexpected = anomaly("c", "1000.0000", 42.0);

    ExactlyOnceVerdict verdict =
        compare(List.of(A, A, A), List.of(otherScore, B, unexpected, unexpected));

    assertThat(verdict.exact()).isFalse();
    assertThat(verdict.anomalyTable()).isEqualTo(new ExactlyOnceVerdict.AnomalyCounts(1, 2, 0, 0));
    assertThat(verdict.anomalyTopic()).isEqualTo(new ExactlyOnceVerdict.AnomalyCounts(0, 0, 1, 2));
    assertThat(verdict.summary())
        .contains("anomaly table lost 1, doubled 2, wrong 0, unexpected 0")
        .contains("anomaly topic lost 0, doubled 0, wrong 1, unexpected 2");
  }

  private static ExactlyOnceVerdict compare(List<AnomalyReport> table, List<AnomalyReport> topic) {
    return ExactlyOnceVerdict.compare(
        Map.of(), SpendingTableReader.Contents.EMPTY, Map.of(), Map.of(), EXPECTED, table, topic);
  }

  private static AnomalyReport anomaly(String transactionId, String mean, double score) {
    return new AnomalyReport(
        transactionId,
        "user-1",
        "EUR",
        Instant.parse("2026-01-15T01:30:00Z"),
        5_000_000,
        24,
        new BigDecimal(mean),
        new BigDecimal("123.4567"),
        score);
  }
}
