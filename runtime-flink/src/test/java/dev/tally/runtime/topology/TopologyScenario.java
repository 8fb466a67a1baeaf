package dev.tally.runtime.topology;

import dev.tally.domain.rejection.RejectedRecord;
import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.SourceRecord;
import dev.tally.domain.transaction.SourcedTransaction;
import dev.tally.domain.transaction.Transaction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A seeded, deterministic input for the topology — out-of-order events within the bound, exact and
 * conflicting duplicates, late events, events just inside the allowed lateness, window-boundary
 * timestamps, three currencies, skewed users, and records already rejected by decoding — plus the
 * oracle: the result of docs/behaviour.md computed sequentially from the rules alone, without
 * Flink.
 */
final class TopologyScenario {

  static final Duration BOUND = Duration.ofSeconds(5);
  static final Instant START = Instant.parse("2026-01-15T00:00:00Z");
  private static final String[] CURRENCIES = {"EUR", "USD", "JPY"};
  private static final RejectionReason[] DECODE_REASONS = {
    RejectionReason.MALFORMED,
    RejectionReason.MISSING_FIELD,
    RejectionReason.INVALID_FIELD,
    RejectionReason.FUTURE_TIMESTAMP
  };

  final List<SourcedTransaction> transactions = new ArrayList<>();
  final List<RejectedRecord> decodeRejections = new ArrayList<>();

  TopologyScenario(long seed, int count, int badCount) {
    SplittableRandom random = new SplittableRandom(seed);
    long cursor = START.toEpochMilli();
    for (int i = 0; i < count; i++) {
      cursor += random.nextLong(0, 4_000);
      double kind = random.nextDouble();
      Transaction tx;
      if (kind < 0.03 && !transactions.isEmpty()) {
        tx = recent(random).transaction(); // exact duplicate
      } else if (kind < 0.05 && !transactions.isEmpty()) {
        Transaction original = recent(random).transaction();
        tx =
            new Transaction(
                original.transactionId(),
                original.userId(),
                original.amountCents() + 1,
                original.currency(),
                original.eventTime());
      } else {
        long eventTime;
        if (kind < 0.07) {
          eventTime = cursor - Duration.ofHours(2).toMillis(); // clearly late
        } else if (kind < 0.09) {
          eventTime =
              cursor
                  - Duration.ofMinutes(3).toMillis(); // late, possibly within the allowed lateness
        } else if (kind < 0.10) {
          eventTime = cursor - Math.floorMod(cursor, 3_600_000L); // exactly on a window boundary
        } else {
          eventTime =
              cursor - random.nextLong(0, BOUND.toMillis()); // out of order within the bound
        }
        int user = (int) (Math.pow(random.nextDouble(), 2) * 30); // skewed: low ids are hot
        tx =
            new Transaction(
                "tx-" + i,
                "user-" + user,
                random.nextLong(-5_000, 50_000),
                CURRENCIES[random.nextInt(CURRENCIES.length)],
                Instant.ofEpochMilli(eventTime));
      }
      transactions.add(new SourcedTransaction(tx, source(i, tx.transactionId())));
    }
    for (int i = 0; i < badCount; i++) {
      RejectionReason reason = DECODE_REASONS[random.nextInt(DECODE_REASONS.length)];
      decodeRejections.add(
          new RejectedRecord(reason, "generated " + reason, source(count + i, "bad-" + i)));
    }
  }

  private SourcedTransaction recent(SplittableRandom random) {
    return transactions.get(
        transactions.size() - 1 - random.nextInt(Math.min(50, transactions.size())));
  }

  private static SourceRecord source(long offset, String value) {
    return new SourceRecord(
        "transactions",
        0,
        offset,
        START.toEpochMilli(),
        null,
        value.getBytes(StandardCharsets.UTF_8));
  }

  /** The table docs/behaviour.md "Output table" demands: one row per key with its final values. */
  record Row(String user, String currency, long windowStart, long total, long count) {}

  /** The oracle's verdicts. */
  record Expected(
      Map<String, Row> table, Map<Long, RejectionReason> deadLetters, int duplicatesDropped) {}

  /**
   * docs/behaviour.md "Aggregation" and "Rejections" applied in input order, with the watermark of
   * docs/behaviour.md "Watermarks": max seen − bound.
   */
  Expected expected(AggregationSettings settings) {
    long size = settings.windows().size().toMillis();
    long lateness = settings.allowedLateness().toMillis();
    Map<String, Map<String, Transaction>> counted = new HashMap<>();
    Map<String, long[]> totals = new TreeMap<>();
    Map<Long, RejectionReason> deadLetters = new TreeMap<>();
    int duplicates = 0;
    long maxSeen = Long.MIN_VALUE;
    for (SourcedTransaction sourced : transactions) {
      Transaction tx = sourced.transaction();
      long watermark = maxSeen == Long.MIN_VALUE ? Long.MIN_VALUE : maxSeen - BOUND.toMillis();
      Transaction previous =
          counted.computeIfAbsent(tx.userId(), u -> new HashMap<>()).get(tx.transactionId());
      long windowStart = settings.windows().windowStart(tx.eventTimeMillis());
      if (previous != null) {
        if (previous.equals(tx)) {
          duplicates++;
        } else {
          deadLetters.put(sourced.source().offset(), RejectionReason.CONFLICTING_DUPLICATE);
        }
      } else if (watermark != Long.MIN_VALUE && watermark >= windowStart + size + lateness) {
        deadLetters.put(sourced.source().offset(), RejectionReason.LATE);
      } else {
        counted.get(tx.userId()).put(tx.transactionId(), tx);
        long[] total =
            totals.computeIfAbsent(
                tx.userId() + "|" + tx.currency() + "|" + windowStart, k -> new long[2]);
        total[0] = Math.addExact(total[0], tx.amountCents());
        total[1]++;
      }
      maxSeen = Math.max(maxSeen, tx.eventTimeMillis());
    }
    for (RejectedRecord bad : decodeRejections) {
      deadLetters.put(bad.source().offset(), bad.reason());
    }
    Map<String, Row> table = new TreeMap<>();
    totals.forEach(
        (key, total) -> {
          String[] parts = key.split("\\|");
          table.put(key, new Row(parts[0], parts[1], Long.parseLong(parts[2]), total[0], total[1]));
        });
    return new Expected(table, deadLetters, duplicates);
  }
}
