package dev.tally.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.adapters.kafka.DeadLetterHeaders;
import dev.tally.domain.fixtures.TransactionJson;
import dev.tally.domain.fixtures.Transactions;
import dev.tally.it.support.CommittedRecords;
import dev.tally.it.support.SpendingRows;
import dev.tally.it.support.StackFixture;
import dev.tally.runtime.TallyMain;
import dev.tally.runtime.config.ConfigurationException;
import dev.tally.stack.KafkaBroker;
import dev.tally.stack.LocalStack;
import dev.tally.stack.TallyYaml;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.layout.PatternLayout;
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
  private static final Instant HOUR = Instant.parse("2026-01-15T10:00:00Z");

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
    produce(topic);
    Path config = configuration(topic, "spending_secured", "");
    Function<String, String> environment = environmentWith(PASSWORD);

    String printed;
    String logs;
    try (CapturedLogs captured = new CapturedLogs()) {
      printed = run(environment, "--config", config.toString(), "--print-config");
      // A bounded job: the command returns once it has finished.
      String output = run(environment, "--config", config.toString());
      logs = captured.text() + output;
    }

    assertThat(printed)
        .contains("kafka.properties.sasl.jaas.config")
        .contains("kafka.properties.security.protocol")
        .doesNotContain(PASSWORD);
    assertThat(logs).as("the logs of the start and the job").doesNotContain(PASSWORD);
    assertThat(logs)
        .as("the capture holds the clients' own configuration dump, so it saw what they log")
        .contains("sasl.jaas.config = [hidden]");

    assertThat(
            SpendingRows.readTallyTable(
                catalog, TableIdentifier.of("analytics", "spending_secured")))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                new SpendingRows.Key("alice", "EUR", HOUR),
                new SpendingRows.Totals(300, 2),
                new SpendingRows.Key("bob", "USD", HOUR),
                new SpendingRows.Totals(5_000, 1)));
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

    assertThatThrownBy(() -> run(environmentWith(wrong), "--config", config.toString()))
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

    assertThatThrownBy(() -> run(environmentWith(PASSWORD), "--config", config.toString()))
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

  /** Runs TallyMain in this JVM; returns what it printed, fails on a non-zero exit code. */
  private static String run(Function<String, String> environment, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = TallyMain.run(args, environment, o, e);
    }
    String printed = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    assertThat(code).as("exit code of tally %s: %s", List.of(args), printed).isZero();
    return printed;
  }

  private static void produce(String topic) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      send(producer, topic, 0, "alice", valid("alice", "EUR", 100, HOUR.plusSeconds(60)));
      send(producer, topic, 0, "alice", valid("alice", "EUR", 200, HOUR.plusSeconds(120)));
      send(producer, topic, 1, "bob", valid("bob", "USD", 5_000, HOUR.plusSeconds(180)));
      send(producer, topic, 1, "bob", "{not json".getBytes(StandardCharsets.UTF_8));
      producer.flush();
    }
  }

  private static byte[] valid(String user, String currency, long amount, Instant at) {
    return TransactionJson.of(
            Transactions.aTransaction().user(user).currency(currency).amount(amount).at(at).build())
        .toBytes();
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer, String topic, int partition, String key, byte[] value)
      throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                topic,
                partition,
                HOUR.plusSeconds(3_590).toEpochMilli(),
                key.getBytes(StandardCharsets.UTF_8),
                value))
        .get();
  }

  /**
   * Every log event of this JVM at INFO and above, as text, while open; the console keeps its WARN
   * level meanwhile.
   */
  private static final class CapturedLogs implements AutoCloseable {
    private final StringWriter text = new StringWriter();
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final Appender appender;
    private final Level rootLevel;

    CapturedLogs() {
      Configuration configuration = context.getConfiguration();
      appender =
          WriterAppender.newBuilder()
              .setName("secured-it-capture")
              .setTarget(text)
              .setLayout(PatternLayout.newBuilder().withPattern("%p %c - %m%n").build())
              .build();
      appender.start();
      configuration.addAppender(appender);
      LoggerConfig rootLogger = configuration.getRootLogger();
      rootLevel = rootLogger.getLevel();
      Appender console = configuration.getAppender("STDOUT");
      rootLogger.removeAppender("STDOUT");
      if (console != null) {
        rootLogger.addAppender(console, Level.WARN, null);
      }
      rootLogger.addAppender(appender, Level.INFO, null);
      rootLogger.setLevel(Level.INFO);
      context.updateLoggers();
    }

    String text() {
      synchronized (text) {
        return text.toString();
      }
    }

    @Override
    public void close() {
      Configuration configuration = context.getConfiguration();
      LoggerConfig rootLogger = configuration.getRootLogger();
      rootLogger.removeAppender(appender.getName());
      Appender console = configuration.getAppender("STDOUT");
      rootLogger.removeAppender("STDOUT");
      if (console != null) {
        rootLogger.addAppender(console, null, null);
      }
      rootLogger.setLevel(rootLevel);
      context.updateLoggers();
      appender.stop();
    }
  }
}
