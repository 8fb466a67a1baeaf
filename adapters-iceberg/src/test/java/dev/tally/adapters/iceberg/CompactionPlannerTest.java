package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.adapters.iceberg.CompactionPlanner.DataFileInfo;
import dev.tally.adapters.iceberg.CompactionPlanner.DeleteFileInfo;
import dev.tally.adapters.iceberg.CompactionPlanner.Plan;
import dev.tally.adapters.iceberg.CompactionPlanner.Scope;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompactionPlannerTest {

  private static final int SPEC = 0;
  private static final Scope P1 = new Scope(SPEC, "day=2026-11-29/bucket=1", false);
  private static final Scope P2 = new Scope(SPEC, "day=2026-11-29/bucket=2", false);
  private static final Scope OLD_SPEC = new Scope(7, "day=2026-11-29", false);
  private static final Scope GLOBAL = new Scope(9, "", true);

  private static DataFileInfo data(String path, Scope scope, long seq) {
    return new DataFileInfo(path, scope, seq);
  }

  private static DeleteFileInfo eq(String path, Scope scope, long seq) {
    return new DeleteFileInfo(path, scope, seq, true);
  }

  private static DeleteFileInfo pos(String path, Scope scope, long seq) {
    return new DeleteFileInfo(path, scope, seq, false);
  }

  private static Plan plan(List<DataFileInfo> data, List<DeleteFileInfo> deletes, long start) {
    return CompactionPlanner.plan(data, deletes, start, SPEC, 2, 1);
  }

  @Test
  void aPartitionUpsertedOverSeveralCommitsIsRewrittenAndAllItsDeletesGo() {
    // Three streaming commits (sequence 1..3): each a data file, an equality delete for it and
    // the older rows, and a position delete for a key repeated within the commit.
    List<DataFileInfo> data = List.of(data("d1", P1, 1), data("d2", P1, 2), data("d3", P1, 3));
    List<DeleteFileInfo> deletes =
        List.of(eq("e1", P1, 1), eq("e2", P1, 2), eq("e3", P1, 3), pos("p3", P1, 3));

    Plan plan = plan(data, deletes, 3);

    assertThat(plan.partitions()).containsOnlyKeys(P1);
    assertThat(plan.partitions().get(P1))
        .extracting(DataFileInfo::path)
        .containsExactly("d1", "d2", "d3");
    assertThat(plan.danglingDeletes()).containsExactlyInAnyOrder("e1", "e2", "e3", "p3");
  }

  @Test
  void aCompactedPartitionWithNothingApplyingIsLeftAlone() {
    Plan plan = plan(List.of(data("c", P1, 5)), List.of(eq("e-old", P1, 5)), 9);

    assertThat(plan.partitions()).isEmpty();
    assertThat(plan.danglingDeletes())
        .as("an equality delete never applies to data of its own sequence number")
        .containsExactly("e-old");
  }

  @Test
  void anEqualityDeleteStaysWhileAnOlderDataFileOfItsPartitionRemains() {
    // P2 is below both thresholds: one data file, and e2 is the only delete, which applies to it
    // only when the delete threshold is 1. With threshold 2 nothing is rewritten and e2 must stay.
    List<DataFileInfo> data = List.of(data("d1", P2, 1));
    List<DeleteFileInfo> deletes = List.of(eq("e2", P2, 2), eq("e-other", P1, 2));

    Plan plan = CompactionPlanner.plan(data, deletes, 2, SPEC, 2, 2);

    assertThat(plan.partitions()).isEmpty();
    assertThat(plan.danglingDeletes())
        .as("e2 still hides rows of d1; e-other applies to no data file")
        .containsExactly("e-other");
  }

  @Test
  void deletesCommittedAfterTheStartingSnapshotAreNeverSeenSoNeverDropped() {
    // The planner only knows the starting snapshot's deletes: a concurrent streaming commit's
    // delete (sequence 4) applies to the rewritten files (sequence 3), which is why they take the
    // starting snapshot's sequence number.
    DataFileInfo rewritten = new DataFileInfo("new", P1, 3, true);
    assertThat(eq("concurrent", P1, 4).appliesTo(rewritten)).isTrue();
    assertThat(eq("e3", P1, 3).appliesTo(rewritten)).isFalse();
    assertThat(pos("p3", P1, 3).appliesTo(rewritten))
        .as("a position delete names older files only")
        .isFalse();
    assertThat(pos("p3", P1, 3).appliesTo(data("d3", P1, 3))).isTrue();
  }

  @Test
  void filesOfAnotherSpecAreNotRewrittenAndKeepTheirDeletes() {
    List<DataFileInfo> data = List.of(data("o1", OLD_SPEC, 1), data("o2", OLD_SPEC, 2));
    List<DeleteFileInfo> deletes = List.of(eq("oe2", OLD_SPEC, 2));

    Plan plan = plan(data, deletes, 2);

    assertThat(plan.partitions()).isEmpty();
    assertThat(plan.danglingDeletes()).isEmpty();
  }

  @Test
  void aGlobalDeleteStaysWhileAnyOlderDataFileRemainsAnywhere() {
    List<DataFileInfo> data =
        List.of(data("d1", P1, 1), data("d2", P1, 2), data("o1", OLD_SPEC, 1));
    List<DeleteFileInfo> deletes = List.of(eq("g2", GLOBAL, 2));

    Plan plan = plan(data, deletes, 2);

    assertThat(plan.partitions()).containsOnlyKeys(P1);
    assertThat(plan.danglingDeletes()).as("g2 still applies to o1 of the old spec").isEmpty();
  }

  @Test
  void dataFileThresholdAloneTriggersARewrite() {
    Plan plan = plan(List.of(data("a", P1, 1), data("b", P1, 2)), List.of(), 2);

    assertThat(plan.partitions()).containsOnlyKeys(P1);
    assertThat(plan.isEmpty()).isFalse();
    assertThat(plan(List.of(data("a", P1, 1)), List.of(), 2).isEmpty()).isTrue();
  }
}
