package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link SnapshotExpiry} on a real (local) Iceberg table: the history the committer walks on
 * restore keeps this job's last commit however hard expiry is configured.
 */
class SnapshotExpiryTest {

  private static final String JOB = "4f1c0a6e3b2d4c5e8f9a0b1c2d3e4f50";

  @RegisterExtension final LocalCatalog local = new LocalCatalog();

  private Table table;
  private int files;

  @BeforeEach
  void createTable() {
    table =
        local.createTable(
            new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
            PartitionSpec.unpartitioned(),
            Map.of());
  }

  /** A snapshot as the Iceberg sink's committer writes it for a checkpoint of {@code job}. */
  private void flinkCommit(String job, long checkpoint) {
    append()
        .set("flink.job-id", job)
        .set("flink.max-committed-checkpoint-id", "" + checkpoint)
        .commit();
  }

  /** A snapshot of someone else, e.g. a compaction after the job's last commit. */
  private void otherCommit() {
    append().set(PartitionCompaction.SUMMARY_KEY, "compaction").commit();
  }

  private AppendFiles append() {
    return table
        .newAppend()
        .appendFile(
            DataFiles.builder(table.spec())
                .withPath(local.warehouse().resolve("data-" + files++ + ".parquet").toString())
                .withFileSizeInBytes(100)
                .withRecordCount(1)
                .build());
  }

  /** What Iceberg 1.11's committer does on restore ({@code SinkUtil}): the first match wins. */
  private OptionalLong lastCommittedCheckpoint(String job) {
    table.refresh();
    for (Snapshot s = table.currentSnapshot();
        s != null;
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      if (job.equals(s.summary().get("flink.job-id"))) {
        return OptionalLong.of(
            Long.parseLong(s.summary().get("flink.max-committed-checkpoint-id")));
      }
    }
    return OptionalLong.empty();
  }

  private void historyOfThreeCommitsThenTwoCompactions() throws InterruptedException {
    flinkCommit(JOB, 1);
    flinkCommit(JOB, 2);
    flinkCommit(JOB, 3);
    otherCommit();
    otherCommit();
    Thread.sleep(1_100); // everything is now older than the max age of 1 s
  }

  @Test
  void theJobsLastCommitSurvivesTheHardestExpiry() throws Exception {
    historyOfThreeCommitsThenTwoCompactions();

    int expired = new SnapshotExpiry(Duration.ofSeconds(1), 1).run(table, JOB, () -> false);

    assertThat(expired).as("checkpoints 1 and 2").isEqualTo(2);
    assertThat(lastCommittedCheckpoint(JOB)).hasValue(3);
  }

  @Test
  void icebergsRuleAloneWouldLoseIt() throws Exception {
    historyOfThreeCommitsThenTwoCompactions();

    table
        .expireSnapshots()
        .expireOlderThan(System.currentTimeMillis() - 1_000)
        .retainLast(1)
        .commit();

    assertThat(lastCommittedCheckpoint(JOB))
        .as("a restore would commit checkpoints again: what SnapshotExpiry prevents")
        .isEmpty();
  }

  @Test
  void aRetentionSetOnTheMainBranchCannotExpireTheAnchor() throws Exception {
    historyOfThreeCommitsThenTwoCompactions();
    // Iceberg's RemoveSnapshots uses a branch's own retention instead of expireOlderThan and
    // retainLast: with these, it would keep snapshot 5 only.
    table.manageSnapshots().setMinSnapshotsToKeep("main", 1).commit();
    table.manageSnapshots().setMaxSnapshotAgeMs("main", 1).commit();

    new SnapshotExpiry(Duration.ofSeconds(1), 1).run(table, JOB, () -> false);

    assertThat(lastCommittedCheckpoint(JOB)).hasValue(3);
  }

  @Test
  void aTableNoFlinkJobCommittedToIsLeftAlone() throws Exception {
    otherCommit();
    otherCommit();
    Thread.sleep(1_100);

    assertThat(new SnapshotExpiry(Duration.ofSeconds(1), 1).run(table, JOB, () -> false)).isZero();
    table.refresh();
    assertThat(table.snapshots()).hasSize(2);
  }
}
