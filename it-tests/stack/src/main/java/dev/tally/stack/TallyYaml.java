package dev.tally.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A Tally {@code tally.yaml} for a job against a set of services (a Kafka broker, an Iceberg REST
 * catalog and its S3-compatible store): the one place the demo and the tests write it, so the
 * configuration they run is the same shape. Every key is documented in docs/configuration.md.
 */
public final class TallyYaml {

  /** Where the services are, as a Tally job reaches them. */
  public record Services(
      String bootstrapServers,
      String catalogUri,
      String warehouse,
      String s3Endpoint,
      String region) {
    public Services {
      Objects.requireNonNull(bootstrapServers, "bootstrapServers");
      Objects.requireNonNull(catalogUri, "catalogUri");
      Objects.requireNonNull(warehouse, "warehouse");
      Objects.requireNonNull(s3Endpoint, "s3Endpoint");
      Objects.requireNonNull(region, "region");
    }
  }

  private final Services services;
  private String topic;
  private String groupId;
  private String deadLetterTopic;
  private String transactionalIdPrefix;
  private boolean bounded;
  private String table;
  private String checkpointDirectory;
  private Duration checkpointInterval = Duration.ofSeconds(5);
  private String jobName;
  private boolean idsFromJobName;
  private Integer parallelism;
  private final Map<String, String> extra = new LinkedHashMap<>();

  private TallyYaml(Services services) {
    this.services = Objects.requireNonNull(services, "services");
  }

  /** A configuration for a job against {@code services}; the remaining setters are required. */
  public static TallyYaml builder(Services services) {
    return new TallyYaml(services);
  }

  /** The source topic; also names the default dead-letter topic, group and job. */
  public TallyYaml topic(String topic) {
    this.topic = Objects.requireNonNull(topic, "topic");
    return this;
  }

  public TallyYaml groupId(String groupId) {
    this.groupId = Objects.requireNonNull(groupId, "groupId");
    return this;
  }

  public TallyYaml deadLetterTopic(String deadLetterTopic) {
    this.deadLetterTopic = Objects.requireNonNull(deadLetterTopic, "deadLetterTopic");
    return this;
  }

  /** Must be unique per job: two jobs sharing it would fence each other's transactions. */
  public TallyYaml transactionalIdPrefix(String prefix) {
    this.transactionalIdPrefix = Objects.requireNonNull(prefix, "prefix");
    return this;
  }

  /** Stop at the offsets that were latest at start ({@code kafka.source.bounded}). */
  public TallyYaml bounded(boolean bounded) {
    this.bounded = bounded;
    return this;
  }

  /** The table in namespace {@code analytics}; null keeps Tally's default. */
  public TallyYaml table(String table) {
    this.table = table;
    return this;
  }

  public TallyYaml checkpointDirectory(Path directory) {
    this.checkpointDirectory = directory.toAbsolutePath().toUri().toString();
    return this;
  }

  public TallyYaml checkpointInterval(Duration interval) {
    this.checkpointInterval = Objects.requireNonNull(interval, "interval");
    return this;
  }

  public TallyYaml jobName(String jobName) {
    this.jobName = Objects.requireNonNull(jobName, "jobName");
    return this;
  }

  /**
   * Leaves the consumer group and the transactional-id prefix unset, so that Tally derives them
   * from {@code job.name}; without this they are set from the topic (or from {@link #groupId} and
   * {@link #transactionalIdPrefix}).
   */
  public TallyYaml idsFromJobName() {
    this.idsFromJobName = true;
    return this;
  }

  /** {@code job.parallelism}; null leaves it to the cluster or the CLI's {@code -p}. */
  public TallyYaml parallelism(Integer parallelism) {
    this.parallelism = parallelism;
    return this;
  }

  /** Any further top-level dotted key, e.g. {@code checkpoints.tolerable-failures}. */
  public TallyYaml set(String key, String value) {
    extra.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    return this;
  }

  /** The YAML text. */
  public String render() {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(checkpointDirectory, "checkpointDirectory");
    String group = groupId != null ? groupId : "tally-" + topic;
    String dlq = deadLetterTopic != null ? deadLetterTopic : topic + ".dlq";
    String prefix =
        transactionalIdPrefix != null ? transactionalIdPrefix : "tally-" + topic + "-dlq";
    StringBuilder yaml = new StringBuilder();
    yaml.append("# Every key is documented in docs/configuration.md.\n");
    yaml.append(
        """
        kafka:
          bootstrap-servers: %s
          source:
            topics: [%s]
        %s    startup-mode: earliest
            bounded: %s
          dead-letter:
            topic: %s
        %swatermarks:
          out-of-orderness: 5s
          idle-timeout: 30s
        iceberg:
          catalog:
            type: rest
            uri: %s
            warehouse: %s
          storage:
            type: s3
            s3-endpoint: %s
            s3-path-style-access: true
            region: %s
        """
            .formatted(
                services.bootstrapServers(),
                topic,
                idsFromJobName ? "" : "    group-id: " + group + "\n",
                bounded,
                dlq,
                idsFromJobName ? "" : "    transactional-id-prefix: " + prefix + "\n",
                services.catalogUri(),
                services.warehouse(),
                services.s3Endpoint(),
                services.region()));
    if (table != null) {
      yaml.append("  table: ").append(table).append('\n');
    }
    yaml.append("state:\n  checkpoint-directory: ").append(checkpointDirectory).append('\n');
    yaml.append("checkpoints:\n  interval: ").append(checkpointInterval.toMillis()).append("ms\n");
    yaml.append("job:\n  name: ").append(jobName != null ? jobName : "tally-" + topic).append('\n');
    if (parallelism != null) {
      yaml.append("  parallelism: ").append(parallelism).append('\n');
    }
    extra.forEach((key, value) -> yaml.append(key).append(": ").append(value).append('\n'));
    return yaml.toString();
  }

  /** Writes {@link #render()} to {@code file}, creating its directory; returns {@code file}. */
  public Path writeTo(Path file) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, render(), StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
