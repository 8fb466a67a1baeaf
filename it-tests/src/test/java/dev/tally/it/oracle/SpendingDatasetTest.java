package dev.tally.it.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
      long seed = seeds.nextLong();
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
}
