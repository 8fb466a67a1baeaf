package dev.tally.bench;

import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The exact totals of every (user, currency, window) live traffic produced, kept as it produces
 * (pass {@link #add} to {@link LiveTraffic}): every event is valid and unique, so each must be
 * counted once. Compares a table with them key by key.
 */
final class LiveExpectation {

  /** How a verdict of a table that agrees begins. */
  static final String EXACT = "exact:";

  /** How a verdict of a table with a window marked final that disagrees begins. */
  static final String WRONG = "WRONG:";

  /** How a verdict of a table that agrees so far but does not cover the windows asked begins. */
  static final String NOT_YET_FINAL = "not yet final:";

  private final long windowMillis;
  private final boolean byCurrency;
  // {total_spent_cents, transaction_count, window end} by IcebergStats.Rows.key
  private final Map<String, long[]> rows = new HashMap<>();

  /** Totals by (user, currency, window), as Tally's table keeps them. */
  LiveExpectation(long windowMillis) {
    this(windowMillis, true);
  }

  /**
   * @param byCurrency false for a table keyed by (user, window) alone, its totals summed over the
   *     currencies (the seed's SQL): keys then have {@link IcebergStats.Rows#ANY_CURRENCY}
   */
  LiveExpectation(long windowMillis, boolean byCurrency) {
    this.windowMillis = windowMillis;
    this.byCurrency = byCurrency;
  }

  synchronized void add(Workload.Event event) {
    long start = Math.floorDiv(event.eventTimeMillis(), windowMillis) * windowMillis;
    String currency = byCurrency ? event.currency() : IcebergStats.Rows.ANY_CURRENCY;
    String key = IcebergStats.Rows.key("user-" + event.user(), currency, start);
    long[] totals = rows.computeIfAbsent(key, k -> new long[] {0, 0, start + windowMillis});
    totals[0] += event.amountCents();
    totals[1]++;
  }

  synchronized boolean has(String key) {
    return rows.containsKey(key);
  }

  /** A copy of the rows of every window ending at or before {@code watermark}. */
  synchronized Map<String, long[]> windowsEndingBy(long watermark) {
    Map<String, long[]> closed = new HashMap<>();
    rows.forEach(
        (key, totals) -> {
          if (totals[2] <= watermark) {
            closed.put(key, totals.clone());
          }
        });
    return closed;
  }

  /** The end of the latest window anything was produced in; {@link Long#MIN_VALUE} before. */
  synchronized long lastWindowEnd() {
    return rows.values().stream().mapToLong(totals -> totals[2]).max().orElse(Long.MIN_VALUE);
  }

  /**
   * {@code table} compared row by row with the expectation, for a table without a completeness
   * marker: every row it holds must be exact (a window's row is written once, when the window
   * fires, after every event of it was produced), and rows it does not hold yet are not judged.
   */
  synchronized String verdictOfRows(IcebergStats.Rows table) {
    long wrong = 0;
    long unexpected = 0;
    for (Map.Entry<String, long[]> row : table.rows().entrySet()) {
      long[] want = rows.get(row.getKey());
      if (want == null) {
        unexpected++;
      } else if (want[0] != row.getValue()[0] || want[1] != row.getValue()[1]) {
        wrong++;
      }
    }
    boolean exact = wrong + unexpected + table.duplicateKeys() == 0;
    return String.format(
        Locale.ROOT,
        "%s %,d rows written so far, each compared%s",
        exact ? EXACT : "WRONG:",
        table.rows().size(),
        exact
            ? ""
            : String.format(
                Locale.ROOT,
                "; %d rows differ, %d unknown keys, %d duplicate keys",
                wrong,
                unexpected,
                table.duplicateKeys()));
  }

  /**
   * {@code table} compared key by key with the expectation over the windows ending by {@code
   * finalBy} (those must all be there, exact); rows of later windows are not compared, rows of no
   * produced key are. "exact: ..." when they agree and {@code finalBy} reaches {@code atLeast}.
   */
  String verdict(IcebergStats.Rows table, long finalBy, long atLeast) {
    Map<String, long[]> closed = windowsEndingBy(finalBy);
    long wrong = 0;
    long missing = 0;
    long unexpected = 0;
    for (Map.Entry<String, long[]> row : table.rows().entrySet()) {
      long[] want = closed.get(row.getKey());
      if (want == null) {
        if (!has(row.getKey())) {
          unexpected++;
        }
      } else if (want[0] != row.getValue()[0] || want[1] != row.getValue()[1]) {
        wrong++;
      }
    }
    for (String key : closed.keySet()) {
      if (!table.rows().containsKey(key)) {
        missing++;
      }
    }
    boolean covers = finalBy >= atLeast;
    boolean exact = wrong + missing + unexpected + table.duplicateKeys() == 0;
    return String.format(
        Locale.ROOT,
        "%s %,d final rows compared (windows ending by %s)%s",
        exact ? (covers ? EXACT : NOT_YET_FINAL) : WRONG,
        closed.size(),
        Instant.ofEpochMilli(finalBy),
        exact
            ? ""
            : String.format(
                Locale.ROOT,
                "; %d rows differ, %d missing, %d unknown keys, %d duplicate keys",
                wrong,
                missing,
                unexpected,
                table.duplicateKeys()));
  }
}
