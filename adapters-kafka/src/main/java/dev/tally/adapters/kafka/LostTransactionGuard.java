package dev.tally.adapters.kafka;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter committer of Flink's {@code KafkaSink}, with the case that loses dead letters
 * made loud.
 *
 * <p>The connector's {@code KafkaCommitter} (5.0) commits the transaction of a completed
 * checkpoint; when the broker has aborted it first (it outlived {@code transaction.timeout.ms}: a
 * failure between the checkpoint's completion and the commit, then a long restart or a broker
 * outage; or another producer fenced it, e.g. a job with the same transactional-id prefix), the
 * commit fails with {@code ProducerFencedException}, {@code InvalidTxnStateException} or {@code
 * UnknownProducerIdException}, which it logs as likely data loss and signals as a failure "with a
 * known reason". Flink discards such a committable and the job goes on: the dead letters of that
 * checkpoint are gone, and only a log line says so.
 *
 * <p>This guard watches for exactly those signals. Each lost transaction is counted ({@code
 * tally.deadletters.lost-transactions} on the committer) and logged as an ERROR naming the
 * transaction. Then the job fails for good, without restarts ({@link SuppressRestartsException}): a
 * restart would only lose the same transaction again. Its checkpoints are retained, and the latest
 * one still holds the lost transaction; resuming from it with {@link
 * DeadLetterConfig#CONTINUE_AFTER_LOST_TRANSACTIONS} set is the operator's acknowledgement: the
 * guard then counts and logs the loss and the job goes on.
 *
 * <p>With pooled transactional ids ({@link DeadLetterConfig#POOL_TRANSACTIONAL_IDS}) a fenced
 * recommit during recovery is expected when a later checkpoint reused the id (the connector says
 * so), so there a {@code ProducerFencedException} is logged as a possible loss and not counted.
 */
// "try": close() throws what the connector's committer throws, as Committer declares it.
@SuppressWarnings("try")
final class LostTransactionGuard implements Committer<KafkaCommittable> {

  private static final Logger LOG = LoggerFactory.getLogger(LostTransactionGuard.class);

  private final Committer<KafkaCommittable> delegate;
  private final Counter lostTransactions;
  private final boolean continueAfterLoss;
  private final boolean pooledIds;

  /**
   * @param delegate the connector's committer
   * @param lostTransactions counts the transactions lost
   * @param continueAfterLoss whether the job goes on after a loss instead of failing
   * @param pooledIds whether the sink reuses transactional ids
   */
  LostTransactionGuard(
      Committer<KafkaCommittable> delegate,
      Counter lostTransactions,
      boolean continueAfterLoss,
      boolean pooledIds) {
    this.delegate = delegate;
    this.lostTransactions = lostTransactions;
    this.continueAfterLoss = continueAfterLoss;
    this.pooledIds = pooledIds;
  }

  @Override
  public void commit(Collection<CommitRequest<KafkaCommittable>> requests)
      throws IOException, InterruptedException {
    List<String> lost = new ArrayList<>();
    List<CommitRequest<KafkaCommittable>> observed = new ArrayList<>(requests.size());
    for (CommitRequest<KafkaCommittable> request : requests) {
      observed.add(new Observed(request, lost));
    }
    delegate.commit(observed);
    if (lost.isEmpty()) {
      return;
    }
    lostTransactions.inc(lost.size());
    String message =
        "Dead letters lost: the broker no longer has "
            + (lost.size() == 1 ? "the Kafka transaction " : lost.size() + " Kafka transactions ")
            + "of a completed checkpoint ("
            + String.join("; ", lost)
            + "), so its dead letters were never committed. It outlived the transaction timeout"
            + " (kafka.dead-letter.transaction-timeout; see kafka.dead-letter.recoverable-downtime)"
            + " or another producer with the same transactional id fenced it"
            + " (kafka.dead-letter.transactional-id-prefix).";
    if (continueAfterLoss) {
      LOG.error(
          "{} The job goes on ({}=true).",
          message,
          DeadLetterConfig.CONTINUE_AFTER_LOST_TRANSACTIONS.name());
      return;
    }
    LOG.error("{} The job fails without restarting.", message);
    throw new SuppressRestartsException(
        new IllegalStateException(
            message
                + " The job fails without restarting, so that this is seen; to go on, resume from"
                + " the latest checkpoint with "
                + DeadLetterConfig.CONTINUE_AFTER_LOST_TRANSACTIONS.name()
                + "=true to go on."));
  }

  @Override
  public void close() throws Exception {
    delegate.close();
  }

  /**
   * Whether a failure the connector signals "with a known reason" means the dead letters are lost.
   */
  private boolean isLoss(Throwable failure) {
    if (failure instanceof ProducerFencedException) {
      return !pooledIds;
    }
    return failure instanceof InvalidTxnStateException
        || failure instanceof UnknownProducerIdException;
  }

  /** A request passed on unchanged, that notes the transactions the connector gives up on. */
  private final class Observed implements CommitRequest<KafkaCommittable> {
    private final CommitRequest<KafkaCommittable> request;
    private final List<String> lost;

    Observed(CommitRequest<KafkaCommittable> request, List<String> lost) {
      this.request = request;
      this.lost = lost;
    }

    @Override
    public KafkaCommittable getCommittable() {
      return request.getCommittable();
    }

    @Override
    public int getNumberOfRetries() {
      return request.getNumberOfRetries();
    }

    @Override
    public void signalFailedWithKnownReason(Throwable failure) {
      KafkaCommittable committable = request.getCommittable();
      String transaction =
          "transactional id "
              + committable.getTransactionalId()
              + ", producer id "
              + committable.getProducerId()
              + ", epoch "
              + committable.getEpoch()
              + ": "
              + failure;
      if (isLoss(failure)) {
        lost.add(transaction);
      } else {
        LOG.warn(
            "Dead letters possibly lost: {} (with pooled transactional ids this is expected during"
                + " a recovery, when a later checkpoint reused the id)",
            transaction);
      }
      request.signalFailedWithKnownReason(failure);
    }

    @Override
    public void signalFailedWithUnknownReason(Throwable failure) {
      request.signalFailedWithUnknownReason(failure);
    }

    @Override
    public void retryLater() {
      request.retryLater();
    }

    @Override
    public void updateAndRetryLater(KafkaCommittable committable) {
      request.updateAndRetryLater(committable);
    }

    @Override
    public void signalAlreadyCommitted() {
      request.signalAlreadyCommitted();
    }
  }
}
