package dev.tally.it.anomaly;

import static dev.tally.it.anomaly.SpecAnomalyOracleTest.twentyAround1000;
import static dev.tally.it.anomaly.SpecAnomalyOracleTest.tx;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The SQL form's semantics at the edges where they differ from the contract's, and the causes
 * {@link OracleDifferences} names for each difference.
 */
class SqlAnomalyOracleTest {

  private static final Instant T = Instant.parse("2026-01-12T10:30:00Z");
  private static final TransactionKey ID = new TransactionKey("u", "t");

  @Test
  void theWindowIsTheSevenDaysUpToTAndHoldsItsOwnMillisecond() {
    List<RawTransaction> rows = nineteenSmall(T.minus(Duration.ofDays(1)));
    List<RawTransaction> atEdge = plus(rows, tx("edge", 1_000, T.minus(Duration.ofDays(7))));
    List<RawTransaction> beyond =
        plus(rows, tx("edge", 1_000, T.minus(Duration.ofDays(7)).minusMillis(1)));
    List<RawTransaction> tie = plus(rows, tx("tie", 1_000, T));

    assertThat(verdict(atEdge, 100_000).count()).isEqualTo(20);
    assertThat(verdict(atEdge, 100_000).anomalous()).isTrue();
    assertThat(verdict(beyond, 100_000).anomalous()).isFalse();
    assertThat(verdict(tie, 100_000).count()).as("T's tie, in its window").isEqualTo(20);
    assertThat(verdict(tie, 100_000).anomalous()).isTrue();
  }

  @Test
  void anEarlierSpikeOfTheSameHourMasksTInSqlNotInTheContract() {
    List<RawTransaction> rows = twentyAround1000(T.minus(Duration.ofHours(2)));
    rows.add(tx("spike", 5_000, T.minus(Duration.ofMinutes(10))));

    assertThat(verdict(rows, 1_500).anomalous()).isFalse();
    assertThat(spec(rows, 1_500)).isTrue();
    assertThat(OracleDifferences.of(with(rows, 1_500)).explained())
        .containsOnlyKeys(OracleDifferences.Cause.OWN_HOUR);
  }

  @Test
  void theStartOfTheFirstHourIsOutsideTheSqlWindow() {
    // Four of the twenty baseline transactions lie in the first 30 minutes of the 168th hour
    // before T's hour, more than 7 days before T.
    List<RawTransaction> rows = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      Instant at =
          i < 4
              ? T.minus(Duration.ofDays(7)).minus(Duration.ofMinutes(5 + i))
              : T.minus(Duration.ofHours(i));
      rows.add(tx("b" + i, i % 2 == 0 ? 900 : 1_100, at));
    }

    assertThat(spec(rows, 2_000)).isTrue();
    assertThat(verdict(rows, 2_000).count()).isEqualTo(16);
    assertThat(verdict(rows, 2_000).anomalous()).isFalse();
    assertThat(OracleDifferences.of(with(rows, 2_000)).explained())
        .containsOnlyKeys(OracleDifferences.Cause.START_OF_THE_FIRST_HOUR);
  }

  @Test
  void doubleArithmeticLosesCentsOfLargeAmounts() {
    // A million units, alternating +0 and +2 cents: exactly mean + 1 cent, σ = 1 cent, so 6 cents
    // more is 5 σ above the mean; the DOUBLE variance comes out as 2, σ as 1.41.
    List<RawTransaction> rows = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      rows.add(tx("b" + i, 100_000_000L + (i % 2) * 2, T.minus(Duration.ofHours(1 + i))));
    }

    assertThat(spec(rows, 100_000_006L)).isTrue();
    assertThat(verdict(rows, 100_000_006L).stddev()).isEqualTo(Math.sqrt(2));
    assertThat(verdict(rows, 100_000_006L).anomalous()).isFalse();
    assertThat(OracleDifferences.of(with(rows, 100_000_006L)).explained())
        .containsOnlyKeys(OracleDifferences.Cause.ARITHMETIC);
  }

  @Test
  void bigintSumsOfSquaresWrap() {
    // Ten units of a billion, twenty of them: the sum of squares is beyond 2^63 and wraps.
    List<RawTransaction> rows = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      rows.add(tx("b" + i, 1_000_000_000L + (i % 2) * 2, T.minus(Duration.ofHours(1 + i))));
    }

    assertThat(spec(rows, 1_000_000_004L)).isFalse();
    assertThat(verdict(rows, 1_000_000_004L).anomalous()).isTrue();
    assertThat(OracleDifferences.of(with(rows, 1_000_000_004L)).explained())
        .containsOnlyKeys(OracleDifferences.Cause.ARITHMETIC);
  }

  @Test
  void everyDifferenceInADatasetHasADocumentedCause() {
    AnomalyDataset data = AnomalyDataset.generate(7, AnomalyDataset.Shape.DEFAULT);
    OracleDifferences differences = OracleDifferences.of(data.transactions());

    assertThat(differences.unexplained()).as("%s", differences).isEmpty();
    assertThat(differences.explained())
        .as("%s", differences)
        .containsOnlyKeys(OracleDifferences.Cause.values());
    assertThat(differences.explained().get(OracleDifferences.Cause.START_OF_THE_FIRST_HOUR))
        .containsExactly(new TransactionKey("edge-start-0", "edge-start-7-t"));
    assertThat(differences.explained().get(OracleDifferences.Cause.OWN_HOUR))
        .contains(new TransactionKey("edge-hour-0", "edge-hour-7-t"));
  }

  private static List<RawTransaction> nineteenSmall(Instant last) {
    List<RawTransaction> rows = new ArrayList<>();
    for (int i = 0; i < 19; i++) {
      rows.add(tx("b" + i, 990 + i, last.minus(Duration.ofHours(i))));
    }
    return rows;
  }

  private static List<RawTransaction> plus(List<RawTransaction> rows, RawTransaction extra) {
    List<RawTransaction> all = new ArrayList<>(rows);
    all.add(extra);
    return all;
  }

  private static List<RawTransaction> with(List<RawTransaction> rows, long amount) {
    return plus(rows, tx("t", amount, T));
  }

  private static SqlAnomalyOracle.Verdict verdict(List<RawTransaction> rows, long amount) {
    return SqlAnomalyOracle.verdicts(with(rows, amount)).get(ID);
  }

  private static boolean spec(List<RawTransaction> rows, long amount) {
    return SpecAnomalyOracle.defaults().anomalies(with(rows, amount)).containsKey(ID);
  }
}
