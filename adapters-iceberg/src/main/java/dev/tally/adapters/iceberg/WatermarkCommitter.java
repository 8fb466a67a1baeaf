package dev.tally.adapters.iceberg;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Committer;

/**
 * Iceberg's committer, given one checkpoint's committable at a time in checkpoint order, with the
 * {@link CompletenessMarker} of that checkpoint put into the snapshot properties Iceberg's
 * committer sets on each commit it makes. Iceberg sets the map it was built with on every commit
 * and keeps no copy (1.11 {@code IcebergCommitter#commitOperation}), so the value in it when a
 * commit is made is the one that commit's snapshot gets.
 *
 * <p>One checkpoint at a time because Iceberg merges several pending append-only checkpoints into
 * one snapshot, which could only carry the newest watermark; each checkpoint's own snapshot carries
 * its own. Pending checkpoints are rare (after a restore, or a failed commit retried), so the extra
 * snapshots cost little.
 *
 * @param <C> Iceberg's committable
 */
final class WatermarkCommitter<C> implements Committer<WatermarkedCommittable<C>> {

  private final Committer<C> iceberg;
  private final Map<String, String> snapshotProperties;

  /**
   * @param iceberg Iceberg's committer
   * @param snapshotProperties the very map {@code iceberg} sets on each commit
   */
  WatermarkCommitter(Committer<C> iceberg, Map<String, String> snapshotProperties) {
    this.iceberg = iceberg;
    this.snapshotProperties = snapshotProperties;
  }

  @Override
  public void commit(Collection<CommitRequest<WatermarkedCommittable<C>>> requests)
      throws IOException, InterruptedException {
    List<CommitRequest<WatermarkedCommittable<C>>> ordered = new ArrayList<>(requests);
    ordered.sort(Comparator.comparingLong(r -> r.getCommittable().checkpointId()));
    for (CommitRequest<WatermarkedCommittable<C>> request : ordered) {
      snapshotProperties.put(
          CompletenessMarker.PROPERTY, Long.toString(request.getCommittable().watermark()));
      iceberg.commit(List.of(new Unwrapped<>(request)));
    }
  }

  @Override
  public void close() throws IOException {
    try {
      iceberg.close();
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IOException("closing Iceberg's committer", e);
    }
  }

  /** A request for Iceberg's committable whose outcome is signalled to the wrapping request. */
  private record Unwrapped<C>(CommitRequest<WatermarkedCommittable<C>> request)
      implements CommitRequest<C> {

    @Override
    public C getCommittable() {
      return request.getCommittable().committable();
    }

    @Override
    public int getNumberOfRetries() {
      return request.getNumberOfRetries();
    }

    @Override
    public void signalFailedWithKnownReason(Throwable t) {
      request.signalFailedWithKnownReason(t);
    }

    @Override
    public void signalFailedWithUnknownReason(Throwable t) {
      request.signalFailedWithUnknownReason(t);
    }

    @Override
    public void retryLater() {
      request.retryLater();
    }

    @Override
    public void updateAndRetryLater(C committable) {
      WatermarkedCommittable<C> marked = request.getCommittable();
      request.updateAndRetryLater(
          new WatermarkedCommittable<>(committable, marked.checkpointId(), marked.watermark()));
    }

    @Override
    public void signalAlreadyCommitted() {
      request.signalAlreadyCommitted();
    }
  }
}
