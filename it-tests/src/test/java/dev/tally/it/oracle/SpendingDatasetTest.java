package dev.tally.it.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tally.it.anomaly.AnomalyReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The dataset's promise that ExactlyOnceIT guards on: every seed, not only a lucky one, yields
 * every rejection reason that data alone decides, and exact duplicates; with a history, more than
 * seven days of event time that never go back in a partition, and anomalies in the history and in
 * the span.
 */
class SpendingDatasetTest {

  private static final SpendingDataset.Shape SHAPE =
      new SpendingDataset.Shape(20_000, 400, Duration.ofHours(4), false);

  /** ExactlyOnceIT's: dense enough for baselines of 20 within the span. */
  private static final SpendingDataset.Shape WITH_HISTORY =
      new SpendingDataset.Shape(200_000, 400, Duration.ofHours(4), false, 40);

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter SQL_FORM =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

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

  @Test
  void aHistorySpansMoreThanSevenDaysAndNoPartitionsEventTimeGoesBackByTheBound() {
    for (long seed : new long[] {7}) {
      SpendingDataset data = SpendingDataset.generate(seed, WITH_HISTORY);
      long[] latest = new long[SpendingDataset.PARTITIONS];
      Arrays.fill(latest, Long.MIN_VALUE / 2);
      long earliest = Long.MAX_VALUE;
      for (Input input : data.inputs()) {
        if (input.rejected() != null) {
          continue;
        }
        long t = eventTime(input);
        earliest = Math.min(earliest, t);
        // Less than the 5 s out-of-orderness bound behind its partition: never LATE.
        assertThat(t)
            .as("seed %d: %s", seed, input)
            .isGreaterThan(latest[input.partition()] - 5_000);
        latest[input.partition()] = Math.max(latest[input.partition()], t);
      }
      assertThat(Duration.ofMillis(SpendingDataset.BASE.toEpochMilli() - earliest))
          .as("seed %d: history before the span", seed)
          .isGreaterThan(Duration.ofDays(7));
      assertThat(data.counted()).hasSize((int) data.countedRecords());
    }
  }

  @Test
  void everySeedWithAHistoryHasAnomaliesInTheHistoryAndInTheSpan() {
    Random seeds = new Random();
    for (int n = 0; n < 2; n++) {
      long seed = seeds.nextLong();
      SpendingDataset data = SpendingDataset.generate(seed, WITH_HISTORY);
      Collection<AnomalyReport> anomalies = data.anomalies(Long.MAX_VALUE).values();
      assertThat(anomalies)
          .as("seed %d: in the history", seed)
          .filteredOn(a -> a.eventTime().isBefore(SpendingDataset.BASE))
          .hasSizeGreaterThanOrEqualTo(20);
      assertThat(anomalies)
          .as("seed %d: in the span", seed)
          .filteredOn(a -> !a.eventTime().isBefore(SpendingDataset.BASE))
          .hasSizeGreaterThanOrEqualTo(20);
      assertThat(data.anomalies(SpendingDataset.BASE.toEpochMilli() - 1).values())
          .as(
              "seed %d: a watermark at the start of the span has decided the history and its first hour",
              seed)
          .containsExactlyInAnyOrderElementsOf(
              anomalies.stream()
                  .filter(a -> !a.eventTime().isAfter(SpendingDataset.BASE.plusMillis(3_599_999)))
                  .toList());
    }
  }

  @Test
  void withoutAHistoryTheDatasetHasNoSpikesAndStartsAtItsBase() {
    SpendingDataset data = SpendingDataset.generate(42, SHAPE);
    assertThat(data.spikes()).isZero();
    assertThat(data.counted())
        .allSatisfy(t -> assertThat(t.eventTime()).isAfterOrEqualTo(SpendingDataset.BASE));
  }

  /** The event time of a record that decodes, in any of the forms the dataset writes. */
  private static long eventTime(Input input) {
    try {
      JsonNode ts = JSON.readTree(input.value()).get("event_timestamp");
      if (ts.isNumber()) {
        return ts.longValue();
      }
      String text = ts.asText();
      return text.contains("T")
          ? OffsetDateTime.parse(text).toInstant().toEpochMilli()
          : LocalDateTime.parse(text, SQL_FORM).toInstant(ZoneOffset.UTC).toEpochMilli();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Integer> largeValueSizes(SpendingDataset data) {
    return data.inputs().stream()
        .filter(i -> i.value() != null && i.value().length > 1_000_000)
        .map(i -> i.value().length)
        .toList();
  }
}
