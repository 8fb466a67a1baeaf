package dev.tally.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.stack.FlinkRestClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SustainedBackpressureTest {

  private static FlinkRestClient.Subtask subtask(
      int index, Object busy, Object idle, Object backpressured, long read) {
    return new FlinkRestClient.Subtask(
        index,
        "RUNNING",
        0,
        Map.of(
            "accumulated-busy-time", busy,
            "accumulated-idle-time", idle,
            "accumulated-backpressured-time", backpressured,
            "read-records", read));
  }

  /** Sums the subtasks' times as Jackson reads them (ints, longs, doubles, NaN while unknown). */
  @Test
  void sumsTheSubtasksAndTakesTheDifferenceOfTwoSnapshots() {
    SustainedBackpressure.Work before =
        SustainedBackpressure.Work.of(
            new FlinkRestClient.VertexDetails(
                List.of(subtask(0, Double.NaN, 1000, 0, 10), subtask(1, 0, 1000L, 0, 10))));
    SustainedBackpressure.Work after =
        SustainedBackpressure.Work.of(
            new FlinkRestClient.VertexDetails(
                List.of(subtask(0, 9000.0, 2000, 0, 510), subtask(1, 9000, 2000L, 0, 610))));

    SustainedBackpressure.Work did = after.since(before);

    assertThat(did.readRecords()).isEqualTo(1100);
    assertThat(did.busyShare()).isEqualTo(0.9);
    assertThat(did.idleShare()).isEqualTo(0.1);
    assertThat(did.backpressuredShare()).isZero();
  }

  /** The writer fault of the last acceptance run: 3,000 rows/s taken of 9,265. */
  @Test
  void aSinkAtAThirdOfItsInputWithBusyWritersAndBackpressuredAggregatorsQualifies() {
    SustainedBackpressure run =
        new SustainedBackpressure(
            540_000,
            1_667_700,
            new SustainedBackpressure.Work(2, 331_200, 28_800, 0, 540_000),
            new SustainedBackpressure.Work(2, 36_000, 21_600, 302_400, 0),
            180);

    assertThat(run.qualifies()).isTrue();
    assertThat(run.verdict()).isEqualTo("yes");
    assertThat(run.figures())
        .isEqualTo(
            "sink 0.32 of input; writers busy 92 %, idle 8 %; aggregators backpressured 84 %");
  }

  /** The store fault at 200 ms: the writers kept up and idled, so it was no sink at 1/3. */
  @Test
  void writersThatKeepUpDoNotQualifyAndTheVerdictSaysWhy() {
    SustainedBackpressure run =
        new SustainedBackpressure(
            1_540_000,
            1_670_000,
            new SustainedBackpressure.Work(2, 136_000, 222_000, 0, 1_540_000),
            new SustainedBackpressure.Work(2, 215_000, 75_000, 68_000, 0),
            179);

    assertThat(run.qualifies()).isFalse();
    assertThat(run.verdict())
        .isEqualTo(
            "no: sink at 0.92 of its input (at most 1/3); writers idle 62 % (at most 20 %);"
                + " aggregators backpressured 19 % (at least 50 %); fault of 179 s (at least"
                + " 180 s)");
  }

  private static SustainedBackpressure.Work saved(String name) throws IOException {
    try (InputStream in =
        SustainedBackpressureTest.class.getResourceAsStream("/backpressure/" + name + ".json")) {
      return SustainedBackpressure.Work.of(
          FlinkRestClient.parse(
              new String(in.readAllBytes(), StandardCharsets.UTF_8),
              FlinkRestClient.VertexDetails.class));
    }
  }

  /**
   * The writers' and aggregators' vertices as the REST API answered them after the 180 s writer
   * fault of 14:50 UTC on 827ae40 (saved by the bench), read as the bench reads them; from the
   * job's start: the 3 minutes of the fault and ~3 s of start-up, a sink at 0.30 of 1,667,883 rows.
   */
  @Test
  void aSavedAnswerOfTheRestApiIsReadAsTheWorkItHolds() throws IOException {
    SustainedBackpressure.Work writers = saved("writers-after-180s");
    SustainedBackpressure.Work aggregators = saved("aggregators-after-180s");

    assertThat(writers.subtasks()).isEqualTo(2);
    assertThat(writers.readRecords()).isEqualTo(252_987 + 251_339);
    assertThat(writers.busyMs()).isEqualTo(169_462.0 + 168_855.0);
    assertThat(writers.idleMs()).isEqualTo(12_251 + 12_841);
    assertThat(aggregators.backpressuredMs()).isEqualTo(154_149 + 152_989);

    SustainedBackpressure run =
        new SustainedBackpressure(writers.readRecords(), 1_667_883, writers, aggregators, 183);
    assertThat(run.figures())
        .isEqualTo(
            "sink 0.30 of input; writers busy 93 %, idle 7 %; aggregators backpressured 85 %");
    assertThat(run.verdict()).isEqualTo("yes");
  }

  /**
   * Two snapshots of one fetch of the metric fetcher (both reads before its next fetch) differ by
   * nothing: the verdict says nothing was measured instead of passing a sink at 0 of its input.
   */
  @Test
  void twoSnapshotsOfOneStaleFetchMeasureNothing() throws IOException {
    SustainedBackpressure.Work writers =
        saved("writers-after-180s").since(saved("writers-after-180s"));
    SustainedBackpressure.Work aggregators =
        saved("aggregators-after-180s").since(saved("aggregators-after-180s"));

    SustainedBackpressure run =
        new SustainedBackpressure(writers.readRecords(), 1_667_883, writers, aggregators, 180);

    assertThat(run.qualifies()).isFalse();
    assertThat(run.verdict())
        .contains(
            "writers' counters account for 0.0 s of the fault's 180 s per subtask (stale metrics:"
                + " nothing measured)");
  }
}
