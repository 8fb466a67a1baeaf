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
 * checkpoint policy, so a misconfiguration fails loudly instead of losing dead letters later.
 *
 * <p>A Kafka transaction opened after checkpoint {@code n} is committed when a later checkpoint
 * completes. If up to {@code f} checkpoints in a row may fail (the tolerable failures), the
 * transaction can stay open for {@code (f + 1) × (interval + checkpoint timeout)}. Should the
 * broker abort it first, its records are gone. The broker refuses producers whose timeout exceeds
 * its {@code transaction.max.timeout.ms}.
 */
public final class TransactionTimeoutCheck {

  /** The broker setting that caps producer transaction timeouts. */
  public static final String BROKER_MAX_TIMEOUT = "transaction.max.timeout.ms";

  private TransactionTimeoutCheck() {}

  /**
   * Every problem with {@code transactionTimeout}; empty when it is fine.
   *
   * @param transactionTimeout the producer's {@code transaction.timeout.ms}
   * @param brokerMaximum the broker's {@code transaction.max.timeout.ms}
   * @param checkpointInterval the checkpoint interval
   * @param checkpointTimeout the checkpoint timeout
   * @param tolerableCheckpointFailures how many checkpoints in a row may fail without failing the
   *     job
   */
  public static List<String> problems(
      Duration transactionTimeout,
      Duration brokerMaximum,
      Duration checkpointInterval,
      Duration checkpointTimeout,
      int tolerableCheckpointFailures) {
    List<String> problems = new ArrayList<>(brokerProblems(transactionTimeout, brokerMaximum));
    problems.addAll(
        policyProblems(
            transactionTimeout,
            checkpointInterval,
            checkpointTimeout,
            tolerableCheckpointFailures));
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

  /** The part of {@link #problems} that needs only the checkpoint policy. */
  public static List<String> policyProblems(
      Duration transactionTimeout,
      Duration checkpointInterval,
      Duration checkpointTimeout,
      int tolerableCheckpointFailures) {
    Duration worstOpen =
        checkpointInterval.plus(checkpointTimeout).multipliedBy(tolerableCheckpointFailures + 1L);
    if (transactionTimeout.compareTo(worstOpen) >= 0) {
      return List.of();
    }
    return List.of(
        "the dead-letter transaction timeout "
            + transactionTimeout
            + " is shorter than the longest a transaction can stay open, "
            + worstOpen
            + " = ("
            + tolerableCheckpointFailures
            + " tolerable checkpoint failures + 1) × (interval "
            + checkpointInterval
            + " + checkpoint timeout "
            + checkpointTimeout
            + "); the broker would abort it and lose dead letters: raise the timeout, or"
            + " shorten the checkpoint policy");
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
