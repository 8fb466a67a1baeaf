package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.adapters.iceberg.RestoreLineage.Commit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link RestoreLineage}: which starts Iceberg's committer can make exact against the table's
 * newest Flink commit, and which fail at start.
 */
class RestoreLineageTest {

  private static final String J1 = "11111111111111111111111111111111";
  private static final String J2 = "22222222222222222222222222222222";

  @RegisterExtension final LocalCatalog local = new LocalCatalog();

  private static Optional<Commit> newest(String job, long checkpoint) {
    return Optional.of(new Commit(7L, job, checkpoint));
  }

  @Test
  void theNewestStateOfTheLineageRestores() {
    // A failover or a resume from the latest savepoint: the table is at or below the state.
    assertThat(RestoreLineage.refusal(newest(J1, 10), J1, List.of(J1), 10)).isEmpty();
    assertThat(RestoreLineage.refusal(newest(J1, 9), J1, List.of(J1), 10)).isEmpty();
    // A new job resumed from J1's savepoint, before and after its own first commit.
    assertThat(RestoreLineage.refusal(newest(J1, 10), J2, List.of(J1), 10)).isEmpty();
    assertThat(RestoreLineage.refusal(newest(J1, 10), J2, List.of(J1, J2), 12)).isEmpty();
    assertThat(RestoreLineage.refusal(Optional.empty(), J2, List.of(J1), 3)).isEmpty();
  }

  @Test
  void anOlderStateOfTheSameJobIsARollback() {
    assertThat(RestoreLineage.refusal(newest(J1, 10), J2, List.of(J1), 5))
        .hasValueSatisfying(
            m ->
                assertThat(m)
                    .contains(
                        "the table has a commit made after the restored state was taken (snapshot 7"
                            + " by job "
                            + J1
                            + " at checkpoint 10; the state is of checkpoint 5 of job "
                            + J1));
  }

  @Test
  void aStateOfAJobBeforeTheOneThatCommittedLastIsARollback() {
    // J2 resumed from J1's savepoint and committed; J1's savepoint again would redo J2's commits.
    assertThat(RestoreLineage.refusal(newest(J2, 11), J2, List.of(J1), 10))
        .hasValueSatisfying(m -> assertThat(m).contains("by job " + J2 + " at checkpoint 11"));
  }

  @Test
  void aStartWithoutStateUnderTheIdOfTheJobThatCommittedIsRefused() {
    assertThat(RestoreLineage.refusal(newest(J1, 40), J1, null, -1))
        .hasValueSatisfying(
            m -> assertThat(m).contains("apache/iceberg#10892", "up to checkpoint 40"));
    assertThat(RestoreLineage.refusal(newest(J1, 40), J2, null, -1)).isEmpty();
    assertThat(RestoreLineage.refusal(Optional.empty(), J1, null, -1)).isEmpty();
  }

  @Test
  void theLineageAddsEachJobOnceAndKeepsTheNewest() {
    assertThat(RestoreLineage.extend(List.of(), J1)).containsExactly(J1);
    assertThat(RestoreLineage.extend(List.of(J1), J1)).containsExactly(J1);
    assertThat(RestoreLineage.extend(List.of(J1), J2)).containsExactly(J1, J2);
    List<String> many =
        java.util.stream.IntStream.range(0, RestoreLineage.MAX_JOBS)
            .mapToObj(i -> String.format("%032d", i))
            .toList();
    assertThat(RestoreLineage.extend(many, J2))
        .hasSize(RestoreLineage.MAX_JOBS)
        .endsWith(J2)
        .doesNotContain(many.get(0));
  }

  @Test
  void theNewestCommitIsTheNewestFlinkSnapshotOfTheAncestryWhateverCameAfter() {
    Table table =
        local.createTable(
            new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
            PartitionSpec.unpartitioned(),
            Map.of());
    assertThat(RestoreLineage.newestCommit(table)).isEmpty();
    append(table, 0).set("flink.job-id", J1).set("flink.max-committed-checkpoint-id", "3").commit();
    append(table, 1).set("flink.job-id", J2).set("flink.max-committed-checkpoint-id", "8").commit();
    long flink = table.currentSnapshot().snapshotId();
    append(table, 2).set(PartitionCompaction.SUMMARY_KEY, "compaction").commit();

    assertThat(RestoreLineage.newestCommit(table)).contains(new Commit(flink, J2, 8));
  }

  private org.apache.iceberg.AppendFiles append(Table table, int file) {
    return table
        .newAppend()
        .appendFile(
            DataFiles.builder(table.spec())
                .withPath(local.warehouse().resolve("data-" + file + ".parquet").toString())
                .withFileSizeInBytes(100)
                .withRecordCount(1)
                .build());
  }
}
