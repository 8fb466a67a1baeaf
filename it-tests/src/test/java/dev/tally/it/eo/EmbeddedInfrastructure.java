package dev.tally.it.eo;

import dev.tally.it.oracle.SpendingDataset;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyYaml;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** The embedded real services of {@code dev.tally.stack}, each in its own JVM on loopback. */
final class EmbeddedInfrastructure implements Infrastructure {

  private final LocalStack stack;

  private EmbeddedInfrastructure(LocalStack stack) {
    this.stack = stack;
  }

  static EmbeddedInfrastructure start(Path root) {
    return new EmbeddedInfrastructure(LocalStack.start(root.resolve("stack")));
  }

  @Override
  public String description() {
    return "embedded real services (Kafka "
        + stack.kafka().bootstrapServers()
        + ", Iceberg REST catalog "
        + stack.catalog().uri()
        + ", S3Proxy "
        + stack.objectStore().endpoint()
        + "; ready in "
        + stack.startup().toMillis()
        + " ms)";
  }

  @Override
  public TallyYaml.Services services() {
    return stack.tallyServices();
  }

  @Override
  public Map<String, String> catalogClientProperties() {
    return stack.catalog().clientProperties();
  }

  @Override
  public String s3AccessKey() {
    return stack.objectStore().accessKey();
  }

  @Override
  public String s3SecretKey() {
    return stack.objectStore().secretKey();
  }

  @Override
  public void createTopic(String name, int partitions) {
    stack.kafka().createTopic(name, partitions, SpendingDataset.TOPIC_CONFIG);
  }

  @Override
  public void restartBroker(Duration downtime) {
    stack.kafka().stop();
    Harness.sleep(downtime);
    stack.kafka().restart();
  }

  @Override
  public void stopCatalog() {
    stack.catalog().stop();
  }

  @Override
  public void startCatalog() {
    stack.catalog().restart();
  }

  @Override
  public void close() {
    stack.close();
  }
}
