package dev.tally.adapters.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the brokers let a client of the job in, asked at start with the client's own security
 * settings. A broker that refuses the client's TLS handshake or SASL credentials, or its access to
 * the cluster or a topic, fails the start with a message naming the keys that configure the client:
 * started anyway, the job would fail on the same refusal in its first task and restart on it
 * forever. A broker that does not answer in time gives no verdict (a warning): the client may run
 * where the start cannot reach, and an unreachable broker is a matter for the job's restarts.
 *
 * <p>Kafka's own messages name the mechanism and the reason, never the credentials, so they are
 * passed on as they are.
 */
public final class KafkaAccessCheck {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaAccessCheck.class);

  private KafkaAccessCheck() {}

  /**
   * The problems of one client, empty when the brokers let it in (or did not answer in time).
   *
   * @param client what the client is, for the message, e.g. {@code "the source consumer"}
   * @param keys the configuration keys that set its security, for the message
   * @param bootstrapServers the brokers it bootstraps from
   * @param clientProperties its client properties; those an admin client knows are used
   * @param topics topics it must be able to describe; a missing topic is not a problem here
   * @param timeout how long to wait for the brokers' answer
   */
  public static List<String> problems(
      String client,
      String keys,
      String bootstrapServers,
      Map<String, String> clientProperties,
      Collection<String> topics,
      Duration timeout) {
    try (Admin admin =
        Admin.create(ClientProperties.of(adminProperties(bootstrapServers, clientProperties)))) {
      admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!topics.isEmpty()) {
        admin.describeTopics(topics).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      }
      return List.of();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof AuthenticationException) {
        return List.of(
            keys
                + ": the brokers at "
                + bootstrapServers
                + " refused "
                + client
                + "'s authentication: "
                + cause.getMessage());
      }
      if (cause instanceof AuthorizationException) {
        return List.of(
            keys
                + ": the brokers at "
                + bootstrapServers
                + " do not authorize "
                + client
                + ": "
                + cause.getMessage());
      }
      if (!(cause instanceof UnknownTopicOrPartitionException)) {
        LOG.warn(
            "Could not check {}'s access to {}: {}", client, bootstrapServers, cause.toString());
      }
      return List.of();
    } catch (TimeoutException e) {
      LOG.warn(
          "Could not check {}'s access to {}: no answer within {}",
          client,
          bootstrapServers,
          timeout);
      return List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while checking " + client + "'s access", e);
    }
  }

  /**
   * The client properties an admin client understands (security and connection settings), with the
   * bootstrap servers: an admin client that reaches the brokers as the client itself does.
   */
  static Map<String, String> adminProperties(
      String bootstrapServers, Map<String, String> clientProperties) {
    Set<String> known = AdminClientConfig.configNames();
    Map<String, String> admin = new HashMap<>();
    clientProperties.forEach(
        (key, value) -> {
          if (known.contains(key)) {
            admin.put(key, value);
          }
        });
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return Map.copyOf(admin);
  }
}
