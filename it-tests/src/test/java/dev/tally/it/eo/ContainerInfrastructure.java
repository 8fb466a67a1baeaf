package dev.tally.it.eo;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import dev.tally.it.oracle.SpendingDataset;
import dev.tally.stack.LoopbackPorts;
import dev.tally.stack.TallyYaml;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.MinIOContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.kafka.KafkaContainer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Kafka, Iceberg's REST fixture image and MinIO on Testcontainers, for machines with a Docker
 * engine. Unverified: the machines this harness was written on have no Docker engine; it compiles
 * and follows Testcontainers' documented API, nothing more is claimed.
 *
 * <p>The broker and the catalog are bound to fixed host ports, so that a stopped and started
 * container is reachable at the address the running job was configured with; the catalog keeps its
 * SQLite file inside its container, which survives a stop.
 */
final class ContainerInfrastructure implements Infrastructure {

  private static final String KAFKA_IMAGE = "apache/kafka:4.1.0";
  private static final String CATALOG_IMAGE = "apache/iceberg-rest-fixture:1.10.0";
  private static final String MINIO_IMAGE = "minio/minio:RELEASE.2025-04-22T22-12-26Z";
  private static final String BUCKET = "tally";
  private static final String REGION = "us-east-1";

  private final Network network;
  private final MinIOContainer minio;
  private final KafkaContainer kafka;
  private final GenericContainer<?> catalog;
  private final int catalogPort;

  private ContainerInfrastructure(
      Network network,
      MinIOContainer minio,
      KafkaContainer kafka,
      GenericContainer<?> catalog,
      int catalogPort) {
    this.network = network;
    this.minio = minio;
    this.kafka = kafka;
    this.catalog = catalog;
    this.catalogPort = catalogPort;
  }

  @SuppressWarnings("resource") // closed in close()
  static ContainerInfrastructure start() {
    Network network = Network.newNetwork();
    MinIOContainer minio =
        new MinIOContainer(MINIO_IMAGE).withNetwork(network).withNetworkAliases("minio");
    minio.start();
    try (S3Client s3 =
        S3Client.builder()
            .endpointOverride(URI.create(minio.getS3URL()))
            .forcePathStyle(true)
            .region(Region.of(REGION))
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(minio.getUserName(), minio.getPassword())))
            .build()) {
      s3.createBucket(b -> b.bucket(BUCKET));
    }
    int kafkaPort = LoopbackPorts.freePort();
    KafkaContainer kafka =
        new KafkaContainer(KAFKA_IMAGE)
            .withNetwork(network)
            .withEnv("KAFKA_TRANSACTION_MAX_TIMEOUT_MS", "3600000")
            .withCreateContainerCmdModifier(
                cmd -> cmd.getHostConfig().withPortBindings(binding(kafkaPort, 9092)));
    kafka.start();
    int catalogPort = LoopbackPorts.freePort();
    GenericContainer<?> catalog =
        new GenericContainer<>(CATALOG_IMAGE)
            .withNetwork(network)
            .withExposedPorts(8181)
            .withEnv("CATALOG_URI", "jdbc:sqlite:file:/tmp/tally-catalog.db")
            .withEnv("CATALOG_WAREHOUSE", "s3://" + BUCKET + "/warehouse")
            .withEnv("CATALOG_IO__IMPL", "org.apache.iceberg.aws.s3.S3FileIO")
            .withEnv("CATALOG_S3_ENDPOINT", "http://minio:9000")
            .withEnv("CATALOG_S3_PATH__STYLE__ACCESS", "true")
            .withEnv("AWS_ACCESS_KEY_ID", minio.getUserName())
            .withEnv("AWS_SECRET_ACCESS_KEY", minio.getPassword())
            .withEnv("AWS_REGION", REGION)
            .withCreateContainerCmdModifier(
                cmd -> cmd.getHostConfig().withPortBindings(binding(catalogPort, 8181)))
            .waitingFor(Wait.forHttp("/v1/config").forStatusCode(200));
    catalog.start();
    return new ContainerInfrastructure(network, minio, kafka, catalog, catalogPort);
  }

  @Override
  public String description() {
    return "Testcontainers (" + KAFKA_IMAGE + ", " + CATALOG_IMAGE + ", " + MINIO_IMAGE + ")";
  }

  @Override
  public TallyYaml.Services services() {
    return new TallyYaml.Services(
        kafka.getBootstrapServers(),
        catalogUri(),
        "s3://" + BUCKET + "/warehouse",
        minio.getS3URL(),
        REGION);
  }

  @Override
  public Map<String, String> catalogClientProperties() {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("uri", catalogUri());
    properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    properties.put("s3.endpoint", minio.getS3URL());
    properties.put("s3.path-style-access", "true");
    properties.put("s3.access-key-id", minio.getUserName());
    properties.put("s3.secret-access-key", minio.getPassword());
    properties.put("client.region", REGION);
    return properties;
  }

  @Override
  public String s3AccessKey() {
    return minio.getUserName();
  }

  @Override
  public String s3SecretKey() {
    return minio.getPassword();
  }

  @Override
  public void createTopic(String name, int partitions) {
    try (Admin admin = admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(name, partitions, (short) 1).configs(SpendingDataset.TOPIC_CONFIG)))
          .all()
          .get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + name, e);
    }
  }

  @Override
  public void restartBroker(Duration downtime) {
    DockerClient docker = DockerClientFactory.instance().client();
    docker.stopContainerCmd(kafka.getContainerId()).exec();
    Harness.sleep(downtime);
    docker.startContainerCmd(kafka.getContainerId()).exec();
    Harness.await(
        "the broker answers again",
        Duration.ofMinutes(2),
        () -> {
          try (Admin admin = admin()) {
            return !admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty();
          } catch (Exception e) {
            return false;
          }
        });
  }

  @Override
  public void stopCatalog() {
    DockerClientFactory.instance().client().stopContainerCmd(catalog.getContainerId()).exec();
  }

  @Override
  public void startCatalog() {
    DockerClientFactory.instance().client().startContainerCmd(catalog.getContainerId()).exec();
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest probe = HttpRequest.newBuilder(URI.create(catalogUri() + "/v1/config")).build();
    Harness.await(
        "the catalog answers again",
        Duration.ofMinutes(2),
        () -> {
          try {
            return http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
          } catch (Exception e) {
            return false;
          }
        });
  }

  @Override
  public void close() {
    catalog.stop();
    kafka.stop();
    minio.stop();
    network.close();
  }

  private String catalogUri() {
    return "http://" + catalog.getHost() + ":" + catalogPort;
  }

  private Admin admin() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBootstrapServers());
    return Admin.create(props);
  }

  private static List<PortBinding> binding(int hostPort, int containerPort) {
    return List.of(
        new PortBinding(Ports.Binding.bindPort(hostPort), new ExposedPort(containerPort)));
  }
}
