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
 * The committer of Flink's {@code KafkaSink} for the dead letters or the anomaly alerts ({@link
 * TransactionalOutput}), with the cases that lose records made loud.
 *
 * <p>The connector's {@code KafkaCommitter} (5.0) commits the transaction of a completed
 * checkpoint. When the commit fails with a "known reason" it logs likely data loss, and Flink
 * discards the committable: the job goes on, and only a log line says what happened. The reasons
 * differ in what they prove:
 *
 * <ul>
 *   <li>{@code InvalidTxnStateException} (a commit of a transaction the broker has aborted: it
 *       outlived {@code transaction.timeout.ms}, e.g. a restart or a broker outage longer than
 *       {@code kafka.dead-letter.recoverable-downtime} allowed for) and {@code
 *       UnknownProducerIdException} (the broker no longer knows the producer at all): the records
 *       of that checkpoint are lost. Each is counted ({@code tally.<output>.lost-transactions}),
 *       logged as an ERROR naming the transaction, and the job fails for good, without restarts
 *       ({@link SuppressRestartsException}), since a restart would only meet the same loss again.
 *       Resuming from the retained checkpoint with the output's continue key set (e.g. {@link
 *       DeadLetterConfig#CONTINUE_AFTER_LOST_TRANSACTIONS}) is the operator's acknowledgement: the
 *       loss is counted and logged and the job goes on.
 *   <li>{@code ProducerFencedException}: a newer producer holds the transactional id. That is the
 *       normal outcome of recommitting a transaction that was committed before a failure once a
 *       later producer took its id (a second restore of one checkpoint, a rollback, a rescale:
 *       FLINK-8086), and also the outcome of a transaction the broker aborted on timeout and whose
 *       id was taken since. The commit response cannot tell the two apart, and failing on it would
 *       fail ordinary recoveries. So it is counted ({@code tally.<output>.fenced-commits}) and
 *       logged as an ERROR naming the transaction, and the job goes on; the start's check of the
 *       transaction timeout ({@link TransactionTimeoutCheck}) is what keeps the timeout case out.
 * </ul>
 */
// "try": close() throws what the connector's committer throws, as Committer declares it.
@SuppressWarnings("try")
final class LostTransactionGuard implements Committer<KafkaCommittable> {

  private static final Logger LOG = LoggerFactory.getLogger(LostTransactionGuard.class);

  private final Committer<KafkaCommittable> delegate;
  private final Counter lostTransactions;
  private final Counter fencedCommits;
  private final TransactionalOutput output;
  private final boolean continueAfterLoss;

  /**
   * @param delegate the connector's committer
   * @param lostTransactions counts the transactions lost
   * @param fencedCommits counts the commits a newer producer of the same id fenced
   * @param output what the transactions hold, for messages
   * @param continueAfterLoss whether the job goes on after a loss instead of failing
   */
  LostTransactionGuard(
      Committer<KafkaCommittable> delegate,
      Counter lostTransactions,
      Counter fencedCommits,
      TransactionalOutput output,
      boolean continueAfterLoss) {
    this.delegate = delegate;
    this.lostTransactions = lostTransactions;
    this.fencedCommits = fencedCommits;
    this.output = output;
    this.continueAfterLoss = continueAfterLoss;
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
    String records = output.records();
    String message =
        Character.toUpperCase(records.charAt(0))
            + records.substring(1)
            + " lost: the broker no longer has "
            + (lost.size() == 1 ? "the Kafka transaction " : lost.size() + " Kafka transactions ")
            + "of a completed checkpoint ("
            + String.join("; ", lost)
            + "), so its "
            + records
            + " were never committed. It outlived the transaction timeout"
            + " (kafka.dead-letter.transaction-timeout; see kafka.dead-letter.recoverable-downtime).";
    if (continueAfterLoss) {
      LOG.error("{} The job goes on ({}=true).", message, output.continueKey());
      return;
    }
    LOG.error("{} The job fails without restarting.", message);
    throw new SuppressRestartsException(
        new IllegalStateException(
            message
                + " The job fails without restarting, so that this is seen; to go on, resume from"
                + " the latest checkpoint with "
                + output.continueKey()
                + "=true."));
  }

  @Override
  public void close() throws Exception {
    delegate.close();
  }

  /**
   * Whether a failure the connector signals "with a known reason" means the dead letters are lost.
   */
  private static boolean isLoss(Throwable failure) {
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
      } else if (failure instanceof ProducerFencedException) {
        fencedCommits.inc();
        LOG.error(
            "Commit of {} fenced: {}. A newer producer holds the transactional id: expected when a"
                + " transaction committed before a failure is recommitted after a later producer"
                + " took its id (a repeated restore, a rollback, a rescale); {} are lost only if"
                + " the broker had aborted the transaction on timeout first"
                + " (kafka.dead-letter.recoverable-downtime) or another job uses the same"
                + " transactional-id prefix ({}). Counted in {}; the job goes on.",
            output.records(),
            transaction,
            output.records(),
            output.prefixSource(),
            output.metric(GuardedKafkaSink.FENCED_COMMITS));
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
