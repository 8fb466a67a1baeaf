package dev.tally.it.eo;

import dev.tally.stack.TallyYaml;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.testcontainers.DockerClientFactory;

/**
 * The services the exactly-once harness runs Tally against (a Kafka broker, an Iceberg REST
 * catalog, an S3-compatible store), and the faults it can inflict on them.
 *
 * <p>{@link #start(Path)} is the one place that decides which: the embedded real services of {@code
 * dev.tally.stack} (the default, and the only kind a machine without Docker can run), or
 * Testcontainers (Kafka, the {@code iceberg-rest-fixture} image, MinIO) when a Docker engine is
 * reachable. {@code -Dtally.it.infrastructure=embedded|containers|auto} forces the choice.
 */
interface Infrastructure extends AutoCloseable {

  /** The system property that forces the choice. */
  String PROPERTY = "tally.it.infrastructure";

  /** What runs, for the test output. */
  String description();

  /** Where a Tally job reaches the services. */
  TallyYaml.Services services();

  /** Properties of an Iceberg {@code RESTCatalog} client that reads the tables. */
  Map<String, String> catalogClientProperties();

  /** Static keys of the S3-compatible store; the test JVM's AWS SDK takes them from properties. */
  String s3AccessKey();

  String s3SecretKey();

  /** Creates a topic for a dataset ({@link dev.tally.it.oracle.SpendingDataset#TOPIC_CONFIG}). */
  void createTopic(String name, int partitions);

  /**
   * Stops the broker, waits {@code downtime}, and starts it again on the same port with the same
   * data.
   */
  void restartBroker(Duration downtime);

  /** Takes the catalog away: clients get connection errors until {@link #startCatalog()}. */
  void stopCatalog();

  /** Brings the catalog back on the same address with the same tables. */
  void startCatalog();

  @Override
  void close();

  /**
   * Starts the infrastructure {@link #PROPERTY} names ({@code auto} by default: containers if a
   * Docker engine is reachable, else the embedded services).
   */
  static Infrastructure start(Path root) {
    String choice = System.getProperty(PROPERTY, "auto").toLowerCase(Locale.ROOT);
    boolean containers =
        switch (choice) {
          case "embedded" -> false;
          case "containers" -> true;
          case "auto" -> DockerClientFactory.instance().isDockerAvailable();
          default ->
              throw new IllegalArgumentException(
                  "-D" + PROPERTY + "=" + choice + ": expected embedded, containers or auto");
        };
    Infrastructure infrastructure =
        containers ? ContainerInfrastructure.start() : EmbeddedInfrastructure.start(root);
    System.out.printf(
        "Exactly-once harness infrastructure: %s (-D%s=%s)%n",
        infrastructure.description(), PROPERTY, choice);
    return infrastructure;
  }
}
