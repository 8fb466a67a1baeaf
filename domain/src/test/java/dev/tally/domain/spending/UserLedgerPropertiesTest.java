package dev.tally.domain.spending;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.domain.rejection.RejectionReason;
import dev.tally.domain.transaction.Transaction;
import dev.tally.domain.window.EventTimeWindow;
import dev.tally.domain.window.TumblingWindows;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * The ledger against the rules of docs/behaviour.md "Aggregation" and "Rejections" written plainly
 * below: random sequences of transactions (fresh ones, exact and conflicting duplicates, late ones,
 * amounts near the ends of the 64-bit range, several users and currencies), watermark advances and
 * early-firing ticks, under random window sizes, offsets and allowed lateness. After every step the
 * ledger's verdict and the rows it emits must be the oracle's.
 */
class UserLedgerPropertiesTest {

  private static final long BASE = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();
  private static final String[] USERS = {"alice", "bob", "carol"};
  private static final String[] CURRENCIES = {"EUR", "USD", "JPY"};
  private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

  /** A step of the input; positions are per mille of the scenario's event-time span. */
  sealed interface Step permits Offer, Repeat, Advance, Tick {}

  /** A transaction; the id is drawn from a small pool, so fresh content may reuse a counted id. */
  record Offer(int id, int user, int currency, long amount, int at) implements Step {}

  /**
   * An earlier offer again, {@code back} offers ago: exact ({@code change} 0 or less), or with a
   * different amount (1), currency (2) or event time (3).
   */
  record Repeat(int back, int change) implements Step {}

  /** The watermark moves on by this much (from just before the span at the first advance). */
  record Advance(int by) implements Step {}

  /** An early-firing interval ends. */
  record Tick() implements Step {}

  record Scenario(long size, long offset, long lateness, List<Step> steps) {
    long span() {
      return 8 * size;
    }

    long time(int perMille) {
      return BASE + perMille * span() / 1000;
    }
  }

  @Property(tries = 1_500)
  void verdictsAndRowsAreThoseOfThePlainRules(@ForAll("scenarios") Scenario scenario) {
    UserLedger ledger =
        new UserLedger(
            new TumblingWindows(
                Duration.ofMillis(scenario.size()), Duration.ofMillis(scenario.offset())),
            Duration.ofMillis(scenario.lateness()));
    Oracle oracle = new Oracle(scenario);
    Map<String, Map<String, SeenTransaction>> seen = new HashMap<>();
    Map<String, OpenWindow[]> open = new HashMap<>();
    List<Transaction> offered = new ArrayList<>();
    long watermark = Long.MIN_VALUE;
    int position = -50;
    for (Step step : scenario.steps()) {
      List<WindowedSpending> rows = new ArrayList<>();
      if (step instanceof Advance advance) {
        position += advance.by();
        watermark = scenario.time(position);
        for (Map.Entry<String, OpenWindow[]> user : open.entrySet()) {
          store(user, ledger.fire(user.getKey(), user.getValue(), watermark), rows);
        }
        assertThat(rows).containsExactlyInAnyOrderElementsOf(oracle.advance(watermark));
        continue;
      }
      if (step instanceof Tick) {
        for (Map.Entry<String, OpenWindow[]> user : open.entrySet()) {
          store(user, ledger.fireEarly(user.getKey(), user.getValue(), watermark), rows);
        }
        assertThat(rows).containsExactlyInAnyOrderElementsOf(oracle.tick(watermark));
        continue;
      }
      Transaction tx = transaction(scenario, step, offered);
      offered.add(tx);
      Map<String, SeenTransaction> ids = seen.computeIfAbsent(tx.userId(), u -> new HashMap<>());
      Verdict verdict =
          ledger.accept(tx, ids.get(tx.transactionId()), open.get(tx.userId()), watermark);
      String outcome;
      if (verdict instanceof Verdict.Counted counted) {
        outcome = "COUNTED";
        ids.put(tx.transactionId(), SeenTransaction.of(tx));
        open.put(tx.userId(), counted.windows());
        if (counted.upsert() != null) {
          rows.add(counted.upsert());
        }
      } else if (verdict instanceof Verdict.Rejected rejected) {
        outcome = rejected.rejection().reason().name();
        assertThat(rejected.rejection().message()).isNotBlank();
      } else {
        outcome = "DUPLICATE";
      }
      List<WindowedSpending> expectedRows = new ArrayList<>();
      assertThat(outcome)
          .as("verdict on %s", tx)
          .isEqualTo(oracle.offer(tx, watermark, expectedRows));
      assertThat(rows).containsExactlyElementsOf(expectedRows);
      Statistics.label("verdicts").collect(outcome + (rows.isEmpty() ? "" : " and upserted"));
    }
    // Every rule must have been exercised, or the comparison above proves little.
    Statistics.label("verdicts")
        .coverage(
            coverage -> {
              for (String verdict :
                  List.of(
                      "COUNTED",
                      "COUNTED and upserted",
                      "DUPLICATE",
                      "CONFLICTING_DUPLICATE",
                      "LATE",
                      "AMOUNT_OVERFLOW")) {
                coverage.check(verdict).percentage(p -> p >= 0.5);
              }
            });
  }

  /** As the job does: the windows are written only when the firing says they changed. */
  private static void store(
      Map.Entry<String, OpenWindow[]> user, Firing firing, List<WindowedSpending> rows) {
    rows.addAll(firing.rows());
    if (firing.changed()) {
      user.setValue(firing.windows());
    }
  }

  private static Transaction transaction(Scenario scenario, Step step, List<Transaction> offered) {
    if (step instanceof Repeat repeat && !offered.isEmpty()) {
      Transaction earlier = offered.get(offered.size() - 1 - repeat.back() % offered.size());
      long amount = earlier.amountCents() + (repeat.change() == 1 ? 1 : 0);
      String currency =
          repeat.change() == 2
              ? CURRENCIES[(List.of(CURRENCIES).indexOf(earlier.currency()) + 1) % 3]
              : earlier.currency();
      Instant at = earlier.eventTime().plusMillis(repeat.change() == 3 ? 1 : 0);
      return new Transaction(earlier.transactionId(), earlier.userId(), amount, currency, at);
    }
    Offer offer = step instanceof Offer o ? o : new Offer(0, 0, 0, 1, 0);
    return new Transaction(
        "tx-" + offer.id(),
        USERS[offer.user()],
        offer.amount(),
        CURRENCIES[offer.currency()],
        Instant.ofEpochMilli(scenario.time(offer.at())));
  }

  /** The rules, stated plainly, with exact arithmetic and the behaviour contract's watermark. */
  private static final class Oracle {

    private final Scenario scenario;
    private final Map<String, Transaction> counted = new HashMap<>();
    private final Map<String, Window> windows = new LinkedHashMap<>();

    private static final class Window {
      final String user;
      final String currency;
      final long start;
      BigInteger total = BigInteger.ZERO;
      long count;
      boolean changed;
      boolean emittedBefore;

      Window(String user, String currency, long start) {
        this.user = user;
        this.currency = currency;
        this.start = start;
      }
    }

    Oracle(Scenario scenario) {
      this.scenario = scenario;
    }

    /**
     * The verdict on {@code tx}, and the row it makes the ledger emit at once into {@code rows}.
     * {@code watermark} is the ledger's (the input is complete up to and including it); the
     * contract's watermark is one more: every event before it has arrived.
     */
    String offer(Transaction tx, long watermark, List<WindowedSpending> rows) {
      Transaction previous = counted.get(tx.userId() + "/" + tx.transactionId());
      if (previous != null) {
        return previous.equals(tx) ? "DUPLICATE" : RejectionReason.CONFLICTING_DUPLICATE.name();
      }
      long start =
          Math.floorDiv(tx.eventTimeMillis() - scenario.offset(), scenario.size()) * scenario.size()
              + scenario.offset();
      long end = start + scenario.size();
      boolean anyWatermark = watermark != Long.MIN_VALUE;
      long contractWatermark = watermark + 1;
      if (anyWatermark && contractWatermark >= end + scenario.lateness()) {
        return RejectionReason.LATE.name();
      }
      Window window =
          windows.computeIfAbsent(
              tx.userId() + "/" + tx.currency() + "/" + start,
              k -> new Window(tx.userId(), tx.currency(), start));
      BigInteger total = window.total.add(BigInteger.valueOf(tx.amountCents()));
      if (total.compareTo(MIN) < 0 || total.compareTo(MAX) > 0) {
        return RejectionReason.AMOUNT_OVERFLOW.name();
      }
      counted.put(tx.userId() + "/" + tx.transactionId(), tx);
      window.total = total;
      window.count++;
      window.changed = true;
      if (anyWatermark && contractWatermark >= end) {
        rows.add(emit(window));
      }
      return "COUNTED";
    }

    /** The rows the watermark reaching {@code watermark} emits: changed windows it completes. */
    List<WindowedSpending> advance(long watermark) {
      List<WindowedSpending> rows = new ArrayList<>();
      for (Window window : windows.values()) {
        if (window.changed && watermark + 1 >= window.start + scenario.size()) {
          rows.add(emit(window));
        }
      }
      return rows;
    }

    /** The rows early firing emits: changed windows not complete yet. */
    List<WindowedSpending> tick(long watermark) {
      List<WindowedSpending> rows = new ArrayList<>();
      for (Window window : windows.values()) {
        boolean complete =
            watermark != Long.MIN_VALUE && watermark + 1 >= window.start + scenario.size();
        if (window.changed && !complete) {
          rows.add(emit(window));
        }
      }
      return rows;
    }

    private WindowedSpending emit(Window window) {
      WindowedSpending row =
          new WindowedSpending(
              new SpendingKey(window.user, window.currency),
              new EventTimeWindow(window.start, window.start + scenario.size()),
              new SpendingAggregate(window.total.longValueExact(), window.count),
              !window.emittedBefore);
      window.changed = false;
      window.emittedBefore = true;
      return row;
    }
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<Long> sizes = Arbitraries.of(1L, 7L, 100L, 60_000L, 3_600_000L);
    return sizes.flatMap(
        size ->
            Combinators.combine(
                    Arbitraries.longs().between(0, size - 1).edgeCases(e -> e.add(0L)),
                    Arbitraries.oneOf(
                        Arbitraries.just(0L), Arbitraries.longs().between(1, 2 * size)),
                    steps().list().ofMaxSize(80))
                .as((offset, lateness, steps) -> new Scenario(size, offset, lateness, steps)));
  }

  private Arbitrary<Step> steps() {
    Arbitrary<Step> offers =
        Combinators.combine(
                Arbitraries.integers().between(0, 200),
                Arbitraries.integers().between(0, USERS.length - 1),
                Arbitraries.integers().between(0, CURRENCIES.length - 1),
                amounts(),
                Arbitraries.integers().between(0, 1000))
            .as(Offer::new);
    Arbitrary<Step> repeats =
        Combinators.combine(
                Arbitraries.integers().between(0, 10), Arbitraries.integers().between(-3, 3))
            .as(Repeat::new);
    Arbitrary<Step> advances = Arbitraries.integers().between(0, 150).map(Advance::new);
    return Arbitraries.frequencyOf(
        Tuple.of(11, offers),
        Tuple.of(4, repeats),
        Tuple.of(4, advances),
        Tuple.of(1, Arbitraries.just(new Tick())));
  }

  private static Arbitrary<Long> amounts() {
    return Arbitraries.oneOf(
        Arbitraries.longs().between(-5_000, 50_000),
        Arbitraries.longs().between(Long.MAX_VALUE - 1_000, Long.MAX_VALUE),
        Arbitraries.longs().between(Long.MIN_VALUE, Long.MIN_VALUE + 1_000),
        Arbitraries.longs().between(Long.MAX_VALUE / 2 - 1_000, Long.MAX_VALUE / 2 + 1_000),
        Arbitraries.longs());
  }
}
