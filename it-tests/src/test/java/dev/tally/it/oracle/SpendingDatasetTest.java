package dev.tally.it.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The dataset's promise that ExactlyOnceIT guards on: every seed, not only a lucky one, yields
 * every rejection reason that data alone decides, and exact duplicates.
 */
class SpendingDatasetTest {

  private static final SpendingDataset.Shape SHAPE =
      new SpendingDataset.Shape(20_000, 400, Duration.ofHours(4), false);

  @Test
  void everySeedYieldsEveryReasonTheDataDecides() {
    // Each special record once came after a branch that a ~2 % draw skips; 300 seeds catch that.
    Random seeds = new Random();
    for (int n = 0; n < 300; n++) {
      // The first, a seed whose random draws hold no FUTURE_TIMESTAMP record.
      long seed = n == 0 ? 3764447813764180771L : seeds.nextLong();
      SpendingDataset data = SpendingDataset.generate(seed, SHAPE);
      assertThat(data.rejectedByReason().keySet())
          .as("seed %d", seed)
          .containsAll(SpendingDataset.REASONS_DATA_DECIDES);
      assertThat(data.rejectedByReason().get("AMOUNT_OVERFLOW"))
          .as("seed %d", seed)
          .isEqualTo(SpendingDataset.PARTITIONS);
      assertThat(data.exactDuplicates()).as("seed %d", seed).isPositive();
    }
  }

  @Test
  void everyDatasetHasRecordsOverTheSizeLimitAndOneJustUnderIt() {
    SpendingDataset data = SpendingDataset.generate(42, SHAPE);
    List<Integer> sizes = largeValueSizes(data);

    assertThat(sizes).hasSize(4).contains(1_048_577, SpendingDataset.MAX_RECORD_BYTES);
    assertThat(sizes)
        .filteredOn(s -> s > 1_048_577 && s < SpendingDataset.MAX_RECORD_BYTES)
        .hasSize(1);
    assertThat(sizes).filteredOn(s -> s < 1_048_576).hasSize(1);
    assertThat(data.inputs())
        .filteredOn(i -> i.value() != null && i.value().length > 1_000_000)
        .extracting(Input::rejected)
        .containsOnly("MALFORMED");
    assertThat(largeValueSizes(SpendingDataset.generate(42, SHAPE)))
        .as("the same seed, the same sizes")
        .isEqualTo(sizes);
    assertThat(largeValueSizes(SpendingDataset.generate(43, SHAPE)).get(1))
        .as("another seed, another size between the limit and 2 MiB")
        .isNotEqualTo(sizes.get(1));
  }

  private static List<Integer> largeValueSizes(SpendingDataset data) {
    return data.inputs().stream()
        .filter(i -> i.value() != null && i.value().length > 1_000_000)
        .map(i -> i.value().length)
        .toList();
  }
}
