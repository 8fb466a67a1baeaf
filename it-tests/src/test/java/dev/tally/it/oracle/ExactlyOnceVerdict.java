package dev.tally.it.oracle;

import dev.tally.it.anomaly.AnomalyReport;
import dev.tally.it.anomaly.TransactionKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The comparison of a run's outputs with the oracle, key by key: how many records the table lost or
 * counted twice, which rows are missing, extra or wrong, which primary keys occur twice, which
 * rejections the dead-letter topic misses, repeats or has without cause, and, for the anomaly table
 * and the anomaly topic each, which anomalies it lost, holds more than once, holds with other
 * values or holds without cause.
 */
public record ExactlyOnceVerdict(
    long recordsLost,
    long recordsCountedTwice,
    int rowsMissing,
    int rowsExtra,
    int rowsWrong,
    int duplicateKeys,
    long deadLettersMissing,
    long deadLettersRepeated,
    long deadLettersUnexpected,
    AnomalyCounts anomalyTable,
    AnomalyCounts anomalyTopic,
    List<String> examples) {

  private static final int EXAMPLES = 8;

  /**
   * How one output differs from the expected anomalies, by identifier (user, transaction id).
   *
   * @param lost expected anomalies it does not hold
   * @param doubled copies beyond the first of an anomaly
   * @param wrong expected anomalies it holds with other values (any copy)
   * @param unexpected copies of anomalies the oracle does not expect
   */
  public record AnomalyCounts(long lost, long doubled, long wrong, long unexpected) {

    /** Whether the output holds each expected anomaly once, as expected, and nothing else. */
    public boolean exact() {
      return lost == 0 && doubled == 0 && wrong == 0 && unexpected == 0;
    }

    @Override
    public String toString() {
      return String.format(
          "lost %d, doubled %d, wrong %d, unexpected %d", lost, doubled, wrong, unexpected);
    }

    static AnomalyCounts compare(
        String output,
        Map<TransactionKey, AnomalyReport> expected,
        List<AnomalyReport> held,
        List<String> examples) {
      Map<TransactionKey, List<AnomalyReport>> copies = new LinkedHashMap<>();
      held.forEach(a -> copies.computeIfAbsent(a.id(), id -> new ArrayList<>()).add(a));
      long lost = 0;
      long doubled = 0;
      long wrong = 0;
      long unexpected = 0;
      for (Map.Entry<TransactionKey, AnomalyReport> e : expected.entrySet()) {
        List<AnomalyReport> found = copies.getOrDefault(e.getKey(), List.of());
        if (found.isEmpty()) {
          lost++;
          example(examples, output + " lost " + e.getValue());
          continue;
        }
        doubled += found.size() - 1;
        if (found.size() > 1) {
          example(examples, output + " holds " + e.getKey() + " x" + found.size());
        }
        for (AnomalyReport a : found) {
          if (!a.equals(e.getValue())) {
            wrong++;
            example(examples, output + " holds " + a + ", expected " + e.getValue());
            break;
          }
        }
      }
      for (Map.Entry<TransactionKey, List<AnomalyReport>> e : copies.entrySet()) {
        if (!expected.containsKey(e.getKey())) {
          unexpected += e.getValue().size();
          example(examples, output + " holds an unexpected " + e.getValue().get(0));
        }
      }
      return new AnomalyCounts(lost, doubled, wrong, unexpected);
    }
  }

  /**
   * Compares the table, the dead letters, the anomaly table and the anomaly topic with what the
   * oracle demands.
   */
  public static ExactlyOnceVerdict compare(
      Map<SpendingKey, Totals> expectedRows,
      SpendingTableReader.Contents table,
      Map<Rejection, Long> expectedLetters,
      Map<Rejection, Long> letters,
      Map<TransactionKey, AnomalyReport> expectedAnomalies,
      List<AnomalyReport> anomalyTable,
      List<AnomalyReport> anomalyTopic) {
    List<String> examples = new ArrayList<>();
    long lost = 0;
    long twice = 0;
    int missing = 0;
    int extra = 0;
    int wrong = 0;
    for (Map.Entry<SpendingKey, Totals> e : expectedRows.entrySet()) {
      Totals actual = table.rows().get(e.getKey());
      Totals expected = e.getValue();
      if (actual == null) {
        missing++;
        lost += expected.count();
        example(examples, "missing row " + e.getKey() + " expected " + expected);
      } else if (!actual.equals(expected)) {
        wrong++;
        long diff = actual.count() - expected.count();
        lost += Math.max(0, -diff);
        twice += Math.max(0, diff);
        example(examples, "row " + e.getKey() + " is " + actual + ", expected " + expected);
      }
    }
    for (Map.Entry<SpendingKey, Totals> e : table.rows().entrySet()) {
      if (!expectedRows.containsKey(e.getKey())) {
        extra++;
        twice += e.getValue().count();
        example(examples, "unexpected row " + e.getKey() + " " + e.getValue());
      }
    }
    for (SpendingKey key : table.duplicateKeys()) {
      example(examples, "primary key twice in the table: " + key);
    }
    long lettersMissing = 0;
    long lettersRepeated = 0;
    long lettersUnexpected = 0;
    Set<Rejection> all = new HashSet<>(expectedLetters.keySet());
    all.addAll(letters.keySet());
    for (Rejection r : all) {
      long want = expectedLetters.getOrDefault(r, 0L);
      long got = letters.getOrDefault(r, 0L);
      if (want == 0) {
        lettersUnexpected += got;
        example(examples, "unexpected dead letter " + r + " x" + got);
      } else if (got < want) {
        lettersMissing += want - got;
        example(examples, "missing dead letter " + r);
      } else if (got > want) {
        lettersRepeated += got - want;
        example(examples, "dead letter " + r + " x" + got);
      }
    }
    return new ExactlyOnceVerdict(
        lost,
        twice,
        missing,
        extra,
        wrong,
        table.duplicateKeys().size(),
        lettersMissing,
        lettersRepeated,
        lettersUnexpected,
        AnomalyCounts.compare("the anomaly table", expectedAnomalies, anomalyTable, examples),
        AnomalyCounts.compare("the anomaly topic", expectedAnomalies, anomalyTopic, examples),
        List.copyOf(examples));
  }

  /** Whether the run ended exactly as the oracle: nothing lost, repeated, wrong or extra. */
  public boolean exact() {
    return recordsLost == 0
        && recordsCountedTwice == 0
        && rowsMissing == 0
        && rowsExtra == 0
        && rowsWrong == 0
        && duplicateKeys == 0
        && deadLettersMissing == 0
        && deadLettersRepeated == 0
        && deadLettersUnexpected == 0
        && anomalyTable.exact()
        && anomalyTopic.exact();
  }

  /** One line for the test output, then the first few differences. */
  public String summary() {
    StringBuilder text =
        new StringBuilder(
            String.format(
                "records lost %d, counted twice %d; rows missing %d, extra %d, wrong %d;"
                    + " duplicate primary keys %d; dead letters missing %d, repeated %d,"
                    + " unexpected %d; anomaly table %s; anomaly topic %s",
                recordsLost,
                recordsCountedTwice,
                rowsMissing,
                rowsExtra,
                rowsWrong,
                duplicateKeys,
                deadLettersMissing,
                deadLettersRepeated,
                deadLettersUnexpected,
                anomalyTable,
                anomalyTopic));
    examples.forEach(e -> text.append("\n    ").append(e));
    return text.toString();
  }

  private static void example(List<String> examples, String text) {
    if (examples.size() < EXAMPLES) {
      examples.add(text);
    }
  }
}
