package dev.tally.domain.spending;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class SpendingAggregatePropertiesTest {

  private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

  @Property(tries = 2_000)
  void mergeIsCommutative(
      @ForAll("aggregates") SpendingAggregate a, @ForAll("aggregates") SpendingAggregate b) {
    assertThat(a.merge(b)).isEqualTo(b.merge(a));
  }

  @Property(tries = 2_000)
  void mergeIsAssociative(
      @ForAll("aggregates") SpendingAggregate a,
      @ForAll("aggregates") SpendingAggregate b,
      @ForAll("aggregates") SpendingAggregate c) {
    assertThat(exact(a.merge(b)).merge(c)).isEqualTo(a.merge(exact(b.merge(c))));
  }

  @Property(tries = 500)
  void emptyIsTheIdentity(@ForAll("aggregates") SpendingAggregate a) {
    assertThat(a.merge(SpendingAggregate.EMPTY)).isEqualTo(a);
    assertThat(SpendingAggregate.EMPTY.merge(a)).isEqualTo(a);
  }

  @Property(tries = 1_000)
  void addingOneByOneEqualsMergingPartialsInAnyGrouping(
      @ForAll("amountLists") List<Long> amounts, @ForAll("splitPoints") int split) {
    int at = Math.min(split, amounts.size());
    SpendingAggregate all = addAll(SpendingAggregate.EMPTY, amounts);
    SpendingAggregate left = addAll(SpendingAggregate.EMPTY, amounts.subList(0, at));
    SpendingAggregate right = addAll(SpendingAggregate.EMPTY, amounts.subList(at, amounts.size()));

    assertThat(right.merge(left)).isEqualTo(all);
    assertThat(all.transactionCount()).isEqualTo(amounts.size());
    assertThat(BigInteger.valueOf(all.totalSpentCents()))
        .isEqualTo(
            amounts.stream().map(BigInteger::valueOf).reduce(BigInteger.ZERO, BigInteger::add));
  }

  /**
   * Whatever the operands, merge either returns the exact sum or reports overflow; it never wraps.
   */
  @Property(tries = 5_000)
  void mergeIsExactOrReportsOverflow(
      @ForAll("extremeAggregates") SpendingAggregate a,
      @ForAll("extremeAggregates") SpendingAggregate b) {
    BigInteger exact =
        BigInteger.valueOf(a.totalSpentCents()).add(BigInteger.valueOf(b.totalSpentCents()));
    if (exact.compareTo(MIN) < 0 || exact.compareTo(MAX) > 0) {
      assertThat(a.merge(b))
          .isInstanceOfSatisfying(
              Overflow.class,
              o -> assertThat(o.message()).contains("leaves the signed 64-bit range"));
    } else {
      assertThat(exact(a.merge(b)).totalSpentCents()).isEqualTo(exact.longValueExact());
    }
  }

  @Property(tries = 5_000)
  void addIsExactOrReportsOverflow(
      @ForAll("extremeAggregates") SpendingAggregate a, @ForAll("extremeAmounts") long amount) {
    BigInteger exact = BigInteger.valueOf(a.totalSpentCents()).add(BigInteger.valueOf(amount));
    if (exact.compareTo(MIN) < 0 || exact.compareTo(MAX) > 0) {
      assertThat(a.add(amount)).isInstanceOf(Overflow.class);
    } else {
      SpendingAggregate sum = exact(a.add(amount));
      assertThat(sum.totalSpentCents()).isEqualTo(exact.longValueExact());
      assertThat(sum.transactionCount()).isEqualTo(a.transactionCount() + 1);
    }
  }

  @Test
  void overflowLeavesTheOperandUntouchedSoTheCallerCanRejectTheRecord() {
    SpendingAggregate nearMax = exact(SpendingAggregate.EMPTY.add(Long.MAX_VALUE - 1));

    assertThat(nearMax.add(2))
        .isEqualTo(
            new Overflow(
                "adding 2 to the total 9223372036854775806 leaves the signed 64-bit range"));
    assertThat(nearMax).isEqualTo(new SpendingAggregate(Long.MAX_VALUE - 1, 1));
    assertThat(exact(nearMax.add(1)).totalSpentCents()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void refundsBelowTheMinimumOverflowToo() {
    SpendingAggregate nearMin = exact(SpendingAggregate.EMPTY.add(Long.MIN_VALUE));

    assertThat(nearMin.add(-1)).isInstanceOf(Overflow.class);
    assertThat(exact(nearMin.add(1)).totalSpentCents()).isEqualTo(Long.MIN_VALUE + 1);
  }

  @Test
  void anAggregateOfNothingMustTotalZero() {
    assertThatThrownBy(() -> new SpendingAggregate(5, 0)).hasMessageContaining("must total 0");
  }

  private static SpendingAggregate addAll(SpendingAggregate start, List<Long> amounts) {
    SpendingAggregate acc = start;
    for (long amount : amounts) {
      acc = exact(acc.add(amount));
    }
    return acc;
  }

  /** The aggregate an addition that must not overflow gave. */
  private static SpendingAggregate exact(Addition addition) {
    assertThat(addition).isInstanceOf(SpendingAggregate.class);
    return (SpendingAggregate) addition;
  }

  @Provide
  Arbitrary<SpendingAggregate> aggregates() {
    // Bounded so that no grouping of three can overflow: the algebra is what is under test here.
    return Combinators.combine(
            Arbitraries.longs().between(-1_000_000_000_000_000L, 1_000_000_000_000_000L),
            Arbitraries.longs().between(1, 1_000_000_000L))
        .as(SpendingAggregate::new)
        .injectDuplicates(0.05)
        .edgeCases(c -> c.add(SpendingAggregate.EMPTY));
  }

  @Provide
  Arbitrary<SpendingAggregate> extremeAggregates() {
    return Combinators.combine(extremeAmounts(), Arbitraries.longs().between(1, Long.MAX_VALUE / 2))
        .as(SpendingAggregate::new);
  }

  @Provide
  Arbitrary<Long> extremeAmounts() {
    return Arbitraries.oneOf(
        Arbitraries.longs(),
        Arbitraries.longs().between(Long.MAX_VALUE - 1_000, Long.MAX_VALUE),
        Arbitraries.longs().between(Long.MIN_VALUE, Long.MIN_VALUE + 1_000));
  }

  @Provide
  Arbitrary<List<Long>> amountLists() {
    return Arbitraries.longs()
        .between(-1_000_000_000_000L, 1_000_000_000_000L)
        .list()
        .ofMaxSize(200);
  }

  @Provide
  Arbitrary<Integer> splitPoints() {
    return Arbitraries.integers().between(0, 200);
  }
}
