package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.adapters.iceberg.SnapshotRetention.Expiry;
import dev.tally.adapters.iceberg.SnapshotRetention.SnapshotInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotRetentionTest {

  private static final String JOB = "job-a";
  private static final long NOW = 1_000_000_000L;

  private static SnapshotInfo commit(long id, long ageMillis, String job) {
    return new SnapshotInfo(id, NOW - ageMillis, job, true);
  }

  private static SnapshotInfo maintenance(long id, long ageMillis) {
    return new SnapshotInfo(id, NOW - ageMillis, null, false);
  }

  @Test
  void theJobsLastCommitSurvivesEvenBehindNewerMaintenanceSnapshots() {
    // Newest first: three compactions after the job's last commit, all older than max-age.
    List<SnapshotInfo> ancestry =
        List.of(
            maintenance(6, 5_000),
            maintenance(5, 6_000),
            maintenance(4, 7_000),
            commit(3, 8_000, JOB),
            commit(2, 9_000, JOB),
            commit(1, 10_000, JOB));

    Expiry expiry =
        SnapshotRetention.expiry(ancestry, JOB, NOW, Duration.ofSeconds(1), 1).orElseThrow();

    assertThat(expiry.anchorSnapshotId()).isEqualTo(3);
    assertThat(SnapshotRetention.kept(ancestry, expiry))
        .extracting(SnapshotInfo::snapshotId)
        .containsExactly(6L, 5L, 4L, 3L);
    // Without the anchor, Iceberg's rule with retain-last 1 and max-age 1 s keeps snapshot 6 only:
    // a restore would not find checkpoint 3's commit and would commit it again.
    assertThat(SnapshotRetention.kept(ancestry, new Expiry(NOW - 1_000, 1, 3)))
        .extracting(SnapshotInfo::snapshotId)
        .containsExactly(6L);
  }

  @Test
  void beforeItsFirstCommitAJobProtectsTheNewestCommitOfTheJobItWasRestoredFrom() {
    List<SnapshotInfo> ancestry =
        List.of(maintenance(4, 5_000), commit(3, 8_000, "job-old"), commit(2, 9_000, "job-old"));

    Expiry expiry =
        SnapshotRetention.expiry(ancestry, JOB, NOW, Duration.ofSeconds(1), 1).orElseThrow();

    assertThat(expiry.anchorSnapshotId()).isEqualTo(3);
    assertThat(SnapshotRetention.kept(ancestry, expiry)).hasSize(2);
  }

  @Test
  void withoutAnyFlinkCommitNothingExpires() {
    assertThat(
            SnapshotRetention.expiry(
                List.of(maintenance(2, 10_000), maintenance(1, 20_000)),
                JOB,
                NOW,
                Duration.ofSeconds(1),
                1))
        .isEmpty();
  }

  @Test
  void retainLastAndMaxAgeBoundTheHistoryOfARunningJob() {
    List<SnapshotInfo> ancestry = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      ancestry.add(commit(1_000 - i, i * 1_000L, JOB)); // one commit a second, newest first
    }

    Expiry expiry =
        SnapshotRetention.expiry(ancestry, JOB, NOW, Duration.ofSeconds(60), 10).orElseThrow();

    assertThat(expiry.retainLast()).isEqualTo(10);
    assertThat(SnapshotRetention.kept(ancestry, expiry)).as("the last 60 s of commits").hasSize(61);
  }

  @Test
  void expiryNeverReachesPastTheAnchorsTimestamp() {
    List<SnapshotInfo> ancestry = List.of(maintenance(2, 100), commit(1, 50_000, JOB));

    Expiry expiry =
        SnapshotRetention.expiry(ancestry, JOB, NOW, Duration.ofSeconds(1), 1).orElseThrow();

    assertThat(expiry.expireOlderThanMillis()).isEqualTo(NOW - 50_000);
    assertThat(expiry.retainLast()).isEqualTo(2);
  }
}
