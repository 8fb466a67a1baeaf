package dev.tally.domain.anomaly;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * The detector, driven as the aggregator drives it (dedupe, lateness, watermark advances), against
 * a brute-force oracle over the raw transactions: for every judged transaction, the baseline is
 * recomputed from the list of counted transactions, and "anomalous" decided from its mean and a
 * two-pass population standard deviation in 300-digit decimals, a computation unlike the rule's
 * integer test. Amounts run from {@code Long.MIN_VALUE} refunds to {@code Long.MAX_VALUE}, ids
 * repeat (exact duplicates), events arrive out of order and late, and event time jumps by more than
 * 7 days.
 */
class AnomalyDetectorPropertiesTest {

  private static final long HOUR = AnomalyDetector.HOUR_MILLIS;
  private static final long BASE = 493_000L * HOUR; // 2026-03-28, hour-aligned
  private static final String[] CURRENCIES = {"EUR", "JPY"};
  private static final MathContext WIDE = new MathContext(300);
  private static final BigDecimal TOLERANCE = new BigDecimal("1e-120");

  record Counted(String id, String currency, long time, long amount) {}

  @Property(tries = 400)
  void everyVerdictIsTheOraclesAndIdleKeysHoldNoState(@ForAll long seed) {
    Random random = new Random(seed);
    long lateness = random.nextInt(3) == 0 ? HOUR * (1 + random.nextInt(3)) : 0;
    AnomalyRule rule =
        new AnomalyRule(
            new long[] {0, 50, 100, 225, 400}[random.nextInt(5)], 1 + random.nextInt(6));
    AnomalyDetector detector = new AnomalyDetector(rule);
    MapStore store = new MapStore();
    List<Counted> counted = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    List<PendingJudgement> pending = new ArrayList<>();
    List<Decision> decisions = new ArrayList<>();
    long watermark = Long.MIN_VALUE;
    long clock = BASE;
    int steps = 50 + random.nextInt(250);
    for (int step = 0; step < steps; step++) {
      int what = random.nextInt(20);
      if (what < 14) {
        // A transaction around the event clock: mostly ahead, some behind the watermark.
        long time = clock + (long) (random.nextGaussian() * 3 * HOUR);
        String id = random.nextInt(8) == 0 && !ids.isEmpty() ? pick(ids, random) : "t" + step;
        String currency = CURRENCIES[random.nextInt(2)];
        long amount = amount(random);
        Counted tx = new Counted(id, currency, time, amount);
        if (ids.contains(id)) {
          continue; // the aggregator drops or rejects a repeated id: it never reaches the detector
        }
        long windowStart = Math.floorDiv(time, HOUR) * HOUR;
        if (windowStart + HOUR - 1 + lateness <= watermark) {
          continue; // LATE: rejected, never counted
        }
        ids.add(id);
        counted.add(tx);
        AnomalyDetector.Arrival arrival = detector.arrive(currency, time, amount, watermark, store);
        if (arrival instanceof AnomalyDetector.Decided decided) {
          decisions.add(new Decision(tx, decided.verdict(), List.copyOf(counted)));
        } else if (arrival instanceof AnomalyDetector.Waiting) {
          pending.add(new PendingJudgement(id, currency, time, amount));
        } else {
          assertThat(amount).isLessThanOrEqualTo(0);
        }
      } else if (what < 19) {
        clock += random.nextInt(5) == 0 ? random.nextInt(400) * HOUR : random.nextInt(3) * HOUR;
        watermark = Math.max(watermark, clock - random.nextInt(2) * HOUR);
        advance(detector, store, pending, decisions, counted, watermark, lateness);
      } else {
        clock += (170 + random.nextInt(100)) * HOUR; // a gap longer than the baseline
      }
    }
    for (Decision decision : decisions) {
      Statistics.collect(decision.verdict().getClass().getSimpleName());
      checkAgainstOracle(rule, decision.tx(), decision.verdict(), decision.countedBefore());
      if (lateness == 0) {
        // Without lateness the baseline was complete when judged: nothing counted later is in it.
        checkAgainstOracle(rule, decision.tx(), decision.verdict(), counted);
      }
    }
    // Long after the last transaction, the key holds nothing.
    advance(detector, store, pending, decisions, counted, clock + 400 * HOUR, lateness);
    assertThat(pending).isEmpty();
    assertThat(store.heads).isEmpty();
    assertThat(store.buckets).isEmpty();
  }

  record Decision(Counted tx, AnomalyVerdict verdict, List<Counted> countedBefore) {}

  private static void advance(
      AnomalyDetector detector,
      MapStore store,
      List<PendingJudgement> pending,
      List<Decision> decisions,
      List<Counted> counted,
      long watermark,
      long lateness) {
    pending.sort(
        (a, b) ->
            a.hour() != b.hour()
                ? Long.compare(a.hour(), b.hour())
                : a.currency().compareTo(b.currency()));
    List<PendingJudgement> left = new ArrayList<>();
    for (PendingJudgement p : pending) {
      if (AnomalyDetector.judgeAt(p.hour()) <= watermark) {
        Counted tx =
            new Counted(p.transactionId(), p.currency(), p.eventTimeMillis(), p.amountCents());
        decisions.add(new Decision(tx, detector.judge(p, store), List.copyOf(counted)));
      } else {
        left.add(p);
      }
    }
    pending.clear();
    pending.addAll(left);
    long earliest = AnomalyDetector.hourOf(watermark - lateness + 1);
    for (String currency : CURRENCIES) {
      detector.forget(currency, earliest, store);
    }
  }

  private static void checkAgainstOracle(
      AnomalyRule rule, Counted tx, AnomalyVerdict verdict, List<Counted> counted) {
    long hour = Math.floorDiv(tx.time(), HOUR);
    List<Long> baseline = new ArrayList<>();
    for (Counted c : counted) {
      long h = Math.floorDiv(c.time(), HOUR);
      if (c.currency().equals(tx.currency()) && c.amount() > 0 && h >= hour - 168 && h < hour) {
        baseline.add(c.amount());
      }
    }
    if (baseline.size() < rule.minBaseline()) {
      assertThat(verdict)
          .isEqualTo(new AnomalyVerdict.TooFewBaseline(baseline.size(), rule.minBaseline()));
      return;
    }
    BigInteger sum = BigInteger.ZERO;
    BigInteger squares = BigInteger.ZERO;
    for (long amount : baseline) {
      sum = sum.add(BigInteger.valueOf(amount));
      squares = squares.add(BigInteger.valueOf(amount).pow(2));
    }
    Baseline expected = new Baseline(baseline.size(), sum, squares);
    BigDecimal n = BigDecimal.valueOf(baseline.size());
    BigDecimal mean = new BigDecimal(sum).divide(n, WIDE);
    BigDecimal deviations = BigDecimal.ZERO;
    for (long amount : baseline) {
      deviations = deviations.add(BigDecimal.valueOf(amount).subtract(mean).pow(2));
    }
    BigDecimal sigma = deviations.divide(n, WIDE).sqrt(WIDE);
    BigDecimal threshold = mean.add(rule.k().multiply(sigma));
    BigDecimal above = BigDecimal.valueOf(tx.amount()).subtract(threshold);
    boolean anomalous = above.compareTo(TOLERANCE) > 0;
    if (above.abs().compareTo(TOLERANCE) <= 0) {
      anomalous = false; // exactly on the threshold: not above it
    }
    assertThat(verdict)
        .as("verdict on %s with baseline %s", tx, baseline)
        .isEqualTo(
            anomalous
                ? new AnomalyVerdict.Anomalous(tx.amount(), expected)
                : new AnomalyVerdict.Normal(expected));
  }

  private static long amount(Random random) {
    return switch (random.nextInt(12)) {
      case 0 -> Long.MAX_VALUE - random.nextInt(3);
      case 1 -> -1L - random.nextInt(1000);
      case 2 -> Long.MIN_VALUE;
      case 3 -> 0;
      case 4 -> 100_000L * (1 + random.nextInt(50)); // a spike
      default -> 1_000L + random.nextInt(3) * 500L; // few values, so ties and σ = 0 occur
    };
  }

  private static String pick(Set<String> ids, Random random) {
    return new ArrayList<>(ids).get(random.nextInt(ids.size()));
  }

  /** The store as plain maps. */
  static final class MapStore implements BaselineStore<RuntimeException> {
    final Map<String, BaselineHead> heads = new HashMap<>();
    final Map<String, HourBucket> buckets = new HashMap<>();

    @Override
    public BaselineHead head(String currency) {
      return heads.get(currency);
    }

    @Override
    public void putHead(String currency, BaselineHead head) {
      heads.put(currency, head);
    }

    @Override
    public void removeHead(String currency) {
      heads.remove(currency);
    }

    @Override
    public HourBucket bucket(String currency, long hour) {
      return buckets.get(currency + "@" + hour);
    }

    @Override
    public void putBucket(String currency, long hour, HourBucket bucket) {
      buckets.put(currency + "@" + hour, bucket);
    }

    @Override
    public void removeBucket(String currency, long hour) {
      buckets.remove(currency + "@" + hour);
    }
  }
}
