package dev.tally.domain.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class AnomalyRuleTest {

  /** Twenty amounts of 100 and twenty of 300: mean 200, σ 100. */
  private static Baseline meanTwoHundredSigmaHundred() {
    Baseline baseline = Baseline.EMPTY;
    for (int i = 0; i < 20; i++) {
      baseline = baseline.plus(100).plus(300);
    }
    return baseline;
  }

  @Test
  void anAmountExactlyOnTheThresholdIsNotAnomalousAndOneCentMoreIs() {
    AnomalyRule rule = AnomalyRule.of(new BigDecimal("2.5"), 20);
    Baseline baseline = meanTwoHundredSigmaHundred();
    assertThat(rule.judge(450, baseline)).isEqualTo(new AnomalyVerdict.Normal(baseline));
    assertThat(rule.judge(451, baseline)).isEqualTo(new AnomalyVerdict.Anomalous(451, baseline));
  }

  @Test
  void theReportCarriesMeanStandardDeviationAndScore() {
    Baseline baseline = meanTwoHundredSigmaHundred();
    Anomaly anomaly = Anomaly.of("t", "u", "EUR", 0, new AnomalyVerdict.Anomalous(651, baseline));
    assertThat(anomaly.baselineCount()).isEqualTo(40);
    assertThat(anomaly.baselineMeanCents()).isEqualByComparingTo("200");
    assertThat(anomaly.baselineStddevCents()).isEqualByComparingTo("100");
    assertThat(anomaly.score()).isEqualByComparingTo("4.51");
  }

  @Test
  void aBaselineWithoutSpreadHasNoScoreAndAnyAmountAboveItsMeanIsAnomalous() {
    Baseline flat = Baseline.EMPTY;
    for (int i = 0; i < 20; i++) {
      flat = flat.plus(500);
    }
    AnomalyRule rule = AnomalyRule.of(BigDecimal.valueOf(4), 20);
    assertThat(rule.judge(500, flat)).isEqualTo(new AnomalyVerdict.Normal(flat));
    AnomalyVerdict verdict = rule.judge(501, flat);
    assertThat(verdict).isEqualTo(new AnomalyVerdict.Anomalous(501, flat));
    assertThat(flat.score(501)).isNull();
  }

  @Test
  void fewerBaselineTransactionsThanTheMinimumAreNotJudged() {
    Baseline baseline = Baseline.EMPTY.plus(1).plus(1);
    assertThat(new AnomalyRule(400, 3).judge(1_000_000, baseline))
        .isEqualTo(new AnomalyVerdict.TooFewBaseline(2, 3));
  }

  @Test
  void refundsAreNeverJudged() {
    assertThat(new AnomalyRule(0, 1).judge(0, meanTwoHundredSigmaHundred()))
        .isEqualTo(AnomalyVerdict.NOT_JUDGED);
    assertThat(new AnomalyRule(0, 1).judge(Long.MIN_VALUE, meanTwoHundredSigmaHundred()))
        .isEqualTo(AnomalyVerdict.NOT_JUDGED);
  }

  @Test
  void amountsNearTheLongLimitDoNotOverflow() {
    Baseline baseline = Baseline.EMPTY;
    for (int i = 0; i < 30; i++) {
      baseline = baseline.plus(Long.MAX_VALUE - i % 2);
    }
    assertThat(baseline.sumOfSquares()).isGreaterThan(BigInteger.valueOf(Long.MAX_VALUE).pow(2));
    AnomalyRule rule = AnomalyRule.of(BigDecimal.ONE, 20);
    // mean MAX − 0.5, σ 0.5: MAX is exactly one σ above, not more.
    assertThat(rule.judge(Long.MAX_VALUE, baseline)).isInstanceOf(AnomalyVerdict.Normal.class);
    assertThat(AnomalyRule.of(new BigDecimal("0.99"), 20).judge(Long.MAX_VALUE, baseline))
        .isInstanceOf(AnomalyVerdict.Anomalous.class);
  }

  @Test
  void kHasAtMostTwoFractionDigitsAndIsNotNegative() {
    assertThat(AnomalyRule.of(new BigDecimal("4.00"), 20)).isEqualTo(new AnomalyRule(400, 20));
    assertThat(AnomalyRule.of(new BigDecimal("4.00"), 20).k()).isEqualTo(new BigDecimal("4"));
    assertThat(AnomalyRule.of(new BigDecimal("2.50"), 20).k()).isEqualTo(new BigDecimal("2.5"));
    assertThatThrownBy(() -> AnomalyRule.of(new BigDecimal("4.001"), 20))
        .hasMessageContaining("2 fraction digits");
    assertThatThrownBy(() -> AnomalyRule.of(new BigDecimal("-1"), 20))
        .hasMessageContaining("negative");
    assertThatThrownBy(() -> new AnomalyRule(400, 0)).hasMessageContaining("at least 1");
  }
}
