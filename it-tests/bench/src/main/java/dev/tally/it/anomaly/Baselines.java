package dev.tally.it.anomaly;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What both oracles do alike before their rules differ. */
final class Baselines {

  static final long HOUR_MILLIS = 3_600_000L;

  private Baselines() {}

  /**
   * The first record of each (user, transaction id), in production order: every later one is an
   * exact duplicate (dropped) or a conflicting one (rejected); either way it is never counted.
   * Keeping the first is decided by order alone, since one user's records share one partition.
   */
  static List<RawTransaction> firstOfEachId(List<RawTransaction> records) {
    Set<TransactionKey> seen = new HashSet<>();
    List<RawTransaction> first = new ArrayList<>();
    for (RawTransaction r : records) {
      if (seen.add(r.id())) {
        first.add(r);
      }
    }
    return first;
  }

  /**
   * The transactions with a positive amount, by (user, currency) key, each key's in event-time
   * order (ties in production order): the only ones a baseline holds or a verdict is made for.
   */
  static Map<String, List<RawTransaction>> positiveByKey(List<RawTransaction> accepted) {
    Map<String, List<RawTransaction>> byKey = new LinkedHashMap<>();
    for (RawTransaction r : accepted) {
      if (r.amountCents() > 0) {
        byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
      }
    }
    byKey.values().forEach(rows -> rows.sort(Comparator.comparing(RawTransaction::eventTime)));
    return byKey;
  }

  /** The start of the UTC-aligned hour of {@code millis}. */
  static long hourOf(long millis) {
    return millis - Math.floorMod(millis, HOUR_MILLIS);
  }
}
