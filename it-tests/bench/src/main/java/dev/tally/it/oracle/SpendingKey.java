package dev.tally.it.oracle;

import java.time.Instant;

/** The output table's primary key, as the oracle sees it. */
public record SpendingKey(String userId, String currency, Instant windowStart)
    implements Comparable<SpendingKey> {
  @Override
  public int compareTo(SpendingKey o) {
    int c = userId.compareTo(o.userId);
    if (c == 0) {
      c = currency.compareTo(o.currency);
    }
    return c != 0 ? c : windowStart.compareTo(o.windowStart);
  }
}
