package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LiveExpectationTest {

  private static final long HOUR = 3_600_000L;

  private static Workload.Event event(long time, int user, String currency, long amount) {
    return new Workload.Event(new byte[0], new byte[0], time, user, currency, amount);
  }

  private static IcebergStats.Rows table(Map<String, long[]> rows) {
    return new IcebergStats.Rows(Long.MIN_VALUE, rows, 0);
  }

  @Test
  void aTableKeyedWithoutCurrencyIsExpectedToSumTheCurrencies() {
    LiveExpectation byUser = new LiveExpectation(HOUR, false);
    byUser.add(event(10, 1, "EUR", 100));
    byUser.add(event(20, 1, "USD", 50));
    Map<String, long[]> rows = new HashMap<>();
    rows.put(
        IcebergStats.Rows.key("user-1", IcebergStats.Rows.ANY_CURRENCY, 0), new long[] {150, 2});

    assertThat(byUser.verdict(table(rows), HOUR, HOUR)).startsWith(LiveExpectation.EXACT);
    assertThat(byUser.verdictOfRows(table(rows))).startsWith(LiveExpectation.EXACT);
  }

  @Test
  void rowsWithoutAMarkerAreJudgedOneByOneAndMissingOnesAreNot() {
    LiveExpectation expected = new LiveExpectation(HOUR, true);
    expected.add(event(10, 1, "EUR", 100));
    expected.add(event(HOUR + 10, 2, "EUR", 70));
    Map<String, long[]> rows = new HashMap<>();
    rows.put(IcebergStats.Rows.key("user-1", "EUR", 0), new long[] {100, 1});

    assertThat(expected.verdictOfRows(table(rows))).startsWith(LiveExpectation.EXACT);
    assertThat(expected.verdict(table(rows), 2 * HOUR, 2 * HOUR)).startsWith("WRONG:");
    assertThat(expected.lastWindowEnd()).isEqualTo(2 * HOUR);

    rows.put(IcebergStats.Rows.key("user-1", "EUR", 0), new long[] {100, 2});
    assertThat(expected.verdictOfRows(table(rows))).startsWith("WRONG:").contains("1 rows differ");
    rows.put(IcebergStats.Rows.key("user-1", "EUR", 0), new long[] {100, 1});
    rows.put(IcebergStats.Rows.key("user-3", "EUR", 0), new long[] {5, 1});
    assertThat(expected.verdictOfRows(table(rows))).contains("1 unknown keys");
  }
}
