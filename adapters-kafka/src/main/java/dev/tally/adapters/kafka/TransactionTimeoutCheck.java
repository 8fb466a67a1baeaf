package dev.tally.adapters.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Checks at start that the dead-letter producer's transaction timeout fits both the broker and the
 * longest a transaction may have to wait for its commit, so a misconfiguration fails loudly instead
 * of losing dead letters later.
 *
 * <p>A Kafka transaction opened after checkpoint {@code n - 1} is committed when a later checkpoint
 * completes. If up to {@code f} checkpoints in a row may fail (the tolerable failures), that takes
 * up to {@code (f + 1) × (interval + min pause + checkpoint timeout)}. If the job fails between a
 * checkpoint's completion and the commit (a cancel racing the commit, a lost TaskManager, a broker
 * outage), the restored job commits the transaction again, after the restart strategy's delay and
 * however long the job or the broker stays down. Should the broker abort the transaction first
 * ({@code transaction.timeout.ms} after it began), its dead letters are gone: {@link
 * LostTransactionGuard} then reports them. The broker refuses producers whose timeout exceeds its
 * {@code transaction.max.timeout.ms}.
 */
public final class TransactionTimeoutCheck {

  /** The broker setting that caps producer transaction timeouts. */
  public static final String BROKER_MAX_TIMEOUT = "transaction.max.timeout.ms";

  private TransactionTimeoutCheck() {}

  /**
   * What bounds how long a dead-letter transaction may stay open before it is committed, or
   * committed again by a restored job.
   *
   * @param checkpointInterval the checkpoint interval
   * @param checkpointMinPause the minimum pause between checkpoints
   * @param checkpointTimeout the checkpoint timeout
   * @param tolerableCheckpointFailures how many checkpoints in a row may fail without failing the
   *     job
   * @param worstRestartBackoff the longest delay the restart strategy waits before a restart
   * @param recoverableDowntime the longest outage (job or broker down) to recover from without
   *     losing dead letters
   */
  public record Lifetime(
      Duration checkpointInterval,
      Duration checkpointMinPause,
      Duration checkpointTimeout,
      int tolerableCheckpointFailures,
      Duration worstRestartBackoff,
      Duration recoverableDowntime) {

    /** The longest a transaction may stay open: the sum the class comment explains. */
    public Duration longest() {
      return checkpointInterval
          .plus(checkpointMinPause)
          .plus(checkpointTimeout)
          .multipliedBy(tolerableCheckpointFailures + 1L)
          .plus(worstRestartBackoff)
          .plus(recoverableDowntime);
    }

    /** The arithmetic of {@link #longest()}, for messages. */
    String describe() {
      return longest()
          + " = ("
          + tolerableCheckpointFailures
          + " tolerable checkpoint failures + 1) × (interval "
          + checkpointInterval
          + " + min pause "
          + checkpointMinPause
          + " + checkpoint timeout "
          + checkpointTimeout
          + ") + worst restart backoff "
          + worstRestartBackoff
          + " + recoverable downtime "
          + recoverableDowntime;
    }
  }

  /**
   * Every problem with {@code transactionTimeout}; empty when it is fine.
   *
   * @param transactionTimeout the producer's {@code transaction.timeout.ms}
   * @param brokerMaximum the broker's {@code transaction.max.timeout.ms}
   * @param lifetime what the transaction must outlive
   */
  public static List<String> problems(
      Duration transactionTimeout, Duration brokerMaximum, Lifetime lifetime) {
    List<String> problems = new ArrayList<>(brokerProblems(transactionTimeout, brokerMaximum));
    problems.addAll(policyProblems(transactionTimeout, lifetime));
    return problems;
  }

  /**
   * The part of {@link #problems} that needs the broker: the timeout must not exceed its maximum.
   */
  public static List<String> brokerProblems(Duration transactionTimeout, Duration brokerMaximum) {
    if (transactionTimeout.compareTo(brokerMaximum) <= 0) {
      return List.of();
    }
    return List.of(
        "the dead-letter transaction timeout "
            + transactionTimeout
            + " exceeds the broker's "
            + BROKER_MAX_TIMEOUT
            + " of "
            + brokerMaximum
            + ": lower the timeout or raise the broker setting");
  }

  /** The part of {@link #problems} that needs only the configuration. */
  public static List<String> policyProblems(Duration transactionTimeout, Lifetime lifetime) {
    if (transactionTimeout.compareTo(lifetime.longest()) >= 0) {
      return List.of();
    }
    return List.of(
        "the dead-letter transaction timeout "
            + transactionTimeout
            + " is shorter than the longest a transaction may wait for its commit, "
            + lifetime.describe()
            + "; the broker would abort it and lose its dead letters: raise the timeout (at most"
            + " the broker's "
            + BROKER_MAX_TIMEOUT
            + "), or shorten the checkpoint policy, the restart backoff or the recoverable"
            + " downtime");
  }

  /** Reads {@value #BROKER_MAX_TIMEOUT} from one broker of the cluster. */
  public static Duration brokerMaximum(Admin admin, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    long millis = timeout.toMillis();
    Node node =
        admin.describeCluster().nodes().get(millis, TimeUnit.MILLISECONDS).iterator().next();
    ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
    Map<ConfigResource, Config> configs =
        admin.describeConfigs(List.of(broker)).all().get(millis, TimeUnit.MILLISECONDS);
    ConfigEntry entry = configs.get(broker).get(BROKER_MAX_TIMEOUT);
    return Duration.ofMillis(Long.parseLong(entry.value()));
  }
}
