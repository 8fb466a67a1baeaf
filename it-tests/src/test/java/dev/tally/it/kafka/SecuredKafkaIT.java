package dev.tally.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.adapters.kafka.DeadLetterHeaders;
import dev.tally.it.support.CommittedRecords;
import dev.tally.it.support.OneHourOfSpending;
import dev.tally.it.support.SpendingRows;
import dev.tally.it.support.StackFixture;
import dev.tally.it.support.TallyCommand;
import dev.tally.runtime.config.ConfigurationException;
import dev.tally.stack.KafkaBroker;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyYaml;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/deployment.md "Secured Kafka", on the real stack: a broker whose client listener takes only
 * TLS with SASL SCRAM-SHA-512, and Tally's job started as {@code TallyMain} starts it, configured
 * only through {@code kafka.properties.} with the password from the environment ({@code ${…}}). The
 * job counts every record and writes the rejected one to the dead-letter topic through that
 * listener; a wrong password fails the start naming the keys, before any job is submitted; the
 * password reaches neither a log line (INFO and above, every logger of this JVM, the job's tasks
 * included) nor the effective-configuration dump nor the start's error.
 */
class SecuredKafkaIT {

  private static final String PASSWORD_VARIABLE = "TALLY_IT_KAFKA_PASSWORD";

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static final String PASSWORD = "pw-" + UUID.randomUUID();

  private static StackFixture fixture;
  private static Path root;
  private static LocalStack stack;
  private static RESTCatalog catalog;

  @BeforeAll
  static void startStack() throws Exception {
    fixture =
        StackFixture.start(
            "secured-kafka-it",
            root -> LocalStack.startSecured(root, new KafkaBroker.ScramUser("tally", PASSWORD)));
    root = fixture.root();
    stack = fixture.stack();
    catalog = fixture.catalog();
  }

  @AfterAll
  static void stopStack() throws Exception {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theJobRunsOverSaslSslWithThePasswordFromTheEnvironmentAndNeverShowsIt(
      @InjectMiniCluster MiniCluster flink) throws Exception {
    String topic = "tx-secured-" + UUID.randomUUID();
    stack.kafka().createTopic(topic, 2, Map.of("retention.ms", "-1"));
    OneHourOfSpending.produce(stack.kafka().bootstrapServers(), topic);
    Path config = configuration(topic, "spending_secured", "");
    Function<String, String> environment = environmentWith(PASSWORD);

    TallyCommand.Shown shown = TallyCommand.printConfigThenRun(environment, config);

    assertThat(shown.effectiveConfiguration())
        .contains("kafka.properties.sasl.jaas.config")
        .contains("kafka.properties.security.protocol")
        .doesNotContain(PASSWORD);
    assertThat(shown.logs()).as("the logs of the start and the job").doesNotContain(PASSWORD);
    assertThat(shown.logs())
        .as("the capture holds the clients' own configuration dump, so it saw what they log")
        .contains("sasl.jaas.config = [hidden]");

    assertThat(
            SpendingRows.readTallyTable(
                catalog, TableIdentifier.of("analytics", "spending_secured")))
        .containsExactlyInAnyOrderEntriesOf(OneHourOfSpending.rows());
    List<ConsumerRecord<byte[], byte[]>> letters =
        CommittedRecords.read(stack.kafka().bootstrapServers(), topic + ".dlq", 1);
    assertThat(letters).hasSize(1);
    assertThat(CommittedRecords.header(letters.get(0), DeadLetterHeaders.REASON))
        .isEqualTo("MALFORMED");
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aWrongPasswordFailsTheStartNamingTheKeys(@InjectMiniCluster MiniCluster flink)
      throws Exception {
    String topic = "tx-secured-wrong-" + UUID.randomUUID();
    stack.kafka().createTopic(topic, 1, Map.of("retention.ms", "-1"));
    String wrong = "wrong-" + UUID.randomUUID();
    Path config = configuration(topic, "spending_secured_wrong", "");
    int jobsBefore = flink.listJobs().get().size();

    assertThatThrownBy(
            () -> TallyCommand.run(environmentWith(wrong), "--config", config.toString()))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("kafka.properties. / kafka.source.properties.")
        .hasMessageContaining("kafka.properties. / kafka.dead-letter.properties.")
        .hasMessageContaining("refused the source consumer's authentication")
        .hasMessageContaining(KafkaBroker.SCRAM_MECHANISM)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(wrong));
    assertThat(flink.listJobs().get()).as("no job submitted").hasSize(jobsBefore);
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aWrongPasswordOfTheConsumerAloneFailsTheStartToo(@InjectMiniCluster MiniCluster flink)
      throws Exception {
    // The dead-letter producer gets in; without a check of the consumer's own settings the job
    // would start and restart on its source's refusal forever.
    String topic = "tx-secured-consumer-" + UUID.randomUUID();
    stack.kafka().createTopic(topic, 1, Map.of("retention.ms", "-1"));
    Path config =
        configuration(
            topic,
            "spending_secured_consumer",
            "kafka.source.properties.sasl.jaas.config: '"
                + KafkaBroker.jaasConfig("tally", "not-the-password")
                + "'\n");
    int jobsBefore = flink.listJobs().get().size();

    assertThatThrownBy(
            () -> TallyCommand.run(environmentWith(PASSWORD), "--config", config.toString()))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("kafka.properties. / kafka.source.properties.")
        .hasMessageContaining("refused the source consumer's authentication")
        .hasMessageNotContaining("dead-letter producer");
    assertThat(flink.listJobs().get()).as("no job submitted").hasSize(jobsBefore);
  }

  /** A bounded job reading the secured listener only, security set under kafka.properties. */
  private static Path configuration(String topic, String table, String extraYaml) {
    TallyYaml.Services plain = stack.tallyServices();
    TallyYaml.Services secured =
        new TallyYaml.Services(
            stack.kafka().securedBootstrapServers(),
            plain.catalogUri(),
            plain.warehouse(),
            plain.s3Endpoint(),
            plain.region());
    String yaml =
        TallyYaml.builder(secured)
                .topic(topic)
                .bounded(true)
                .table(table)
                .checkpointDirectory(root.resolve("checkpoints-" + table))
                .checkpointInterval(Duration.ofSeconds(1))
                .parallelism(2)
                .render()
            + """
            kafka.properties.security.protocol: SASL_SSL
            kafka.properties.sasl.mechanism: %s
            kafka.properties.sasl.jaas.config: '%s'
            kafka.properties.ssl.truststore.type: PEM
            kafka.properties.ssl.truststore.location: %s
            """
                .formatted(
                    KafkaBroker.SCRAM_MECHANISM,
                    KafkaBroker.jaasConfig("tally", "${" + PASSWORD_VARIABLE + "}"),
                    stack.kafka().tls().trustStore())
            + extraYaml;
    Path file = root.resolve(table + ".yaml");
    try {
      Files.writeString(file, yaml, StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return file;
  }

  private static Function<String, String> environmentWith(String password) {
    return name -> PASSWORD_VARIABLE.equals(name) ? password : System.getenv(name);
  }
}
