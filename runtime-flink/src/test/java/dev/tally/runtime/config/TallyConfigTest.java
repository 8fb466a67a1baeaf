package dev.tally.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.adapters.iceberg.CatalogConfig;
import dev.tally.adapters.iceberg.CatalogType;
import dev.tally.adapters.iceberg.StorageConfig;
import dev.tally.adapters.iceberg.WriteDistribution;
import dev.tally.adapters.kafka.DeadLetterConfig;
import dev.tally.adapters.kafka.KafkaSourceConfig;
import dev.tally.adapters.kafka.StartupMode;
import dev.tally.domain.window.TumblingWindows;
import dev.tally.runtime.topology.AggregationSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend.PriorityQueueStateType;
import org.apache.flink.state.rocksdb.PredefinedOptions;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TallyConfigTest {

  private static final Map<String, String> MINIMAL =
      Map.of(
          KafkaSourceConfig.BOOTSTRAP_SERVERS.name(), "127.0.0.1:9092",
          StateConfig.CHECKPOINT_DIRECTORY.name(), "file:///var/tally/checkpoints",
          CatalogConfig.WAREHOUSE.name(), "file:///var/tally/warehouse");

  @TempDir Path dir;

  private Path yaml(String text) throws Exception {
    Path file = dir.resolve("tally.yaml");
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  @Test
  void defaultsFollowTheSpecAndTheBrief() {
    TallyConfig config = TallyConfig.read(ConfigSource.of(MINIMAL));

    assertThat(config.kafka().source().topics()).containsExactly("financial-transactions");
    assertThat(config.kafka().source().startupMode()).isEqualTo(StartupMode.LATEST);
    assertThat(config.kafka().source().outOfOrderness()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.kafka().source().idleTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.kafka().source().maxRecordBytes()).isEqualTo(1024 * 1024);
    assertThat(config.kafka().source().maxFutureSkew()).isEqualTo(Duration.ofHours(1));
    assertThat(config.kafka().deadLetter().topic()).isEqualTo("financial-transactions.dlq");
    assertThat(config.kafka().deadLetter().transactionTimeout()).isEqualTo(Duration.ofMinutes(15));
    assertThat(config.aggregation().windows().size()).isEqualTo(Duration.ofHours(1));
    assertThat(config.aggregation().allowedLateness()).isZero();
    assertThat(config.aggregation().dedupeRetention()).isEqualTo(Duration.ofHours(24));
    assertThat(config.aggregation().earlyFiring()).isFalse();
    assertThat(config.aggregation().writeBackUsers()).isEqualTo(100_000);
    assertThat(config.aggregation().dedupeFullIds()).isFalse();
    assertThat(config.state().incremental()).isTrue();
    assertThat(config.checkpoints().interval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.checkpoints().unaligned()).isTrue();
    assertThat(config.checkpoints().retention())
        .isEqualTo(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    assertThat(config.job().maxParallelism()).isEqualTo(128);
    assertThat(config.iceberg().catalog().type()).isEqualTo(CatalogType.HADOOP);
    assertThat(config.iceberg().tableIdentifier()).hasToString("analytics.user_hourly_spending");
    assertThat(config.iceberg().userIdBuckets()).isEqualTo(16);
    assertThat(config.iceberg().distribution()).isEqualTo(WriteDistribution.HASH);
    assertThat(config.iceberg().maintenance().enabled())
        .as("Tally's own maintenance needs no Kryo, so it is on")
        .isTrue();

    Configuration flink = new Configuration();
    config.state().applyTo(flink);
    config.checkpoints().applyTo(flink);
    config.restart().applyTo(flink);
    config.job().applyTo(flink);
    assertThat(flink.get(StateBackendOptions.STATE_BACKEND)).isEqualTo("rocksdb");
    assertThat(flink.get(RocksDBConfigurableOptions.USE_BLOOM_FILTER)).isTrue();
    assertThat(flink.get(RocksDBConfigurableOptions.WRITE_BUFFER_SIZE))
        .as("a small memtable is flushed as it fills, not all at the checkpoint barrier")
        .isEqualTo(MemorySize.parse("4m"));
    assertThat(flink.get(RocksDBConfigurableOptions.MAX_WRITE_BUFFER_NUMBER)).isEqualTo(12);
    assertThat(flink.get(RocksDBOptions.TIMER_SERVICE_FACTORY))
        .isEqualTo(PriorityQueueStateType.ROCKSDB);
    assertThat(flink.get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)).isTrue();
    assertThat(flink.get(CheckpointingOptions.ENABLE_UNALIGNED)).isTrue();
    assertThat(flink.get(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT))
        .as(
            "unaligned from the first barrier: an aligned phase only adds its length under backpressure")
        .isZero();
    assertThat(flink.get(RestartStrategyOptions.RESTART_STRATEGY)).isEqualTo("exponential-delay");
    assertThat(flink.get(PipelineOptions.GENERIC_TYPES)).isFalse();
    assertThat(flink.get(PipelineOptions.AUTO_GENERATE_UIDS)).isFalse();
  }

  @Test
  void theEmbeddedClusterDebloatsNetworkBuffersAsADeployedOneDoes() {
    TallyConfig config = TallyConfig.read(ConfigSource.of(MINIMAL));

    Configuration job = new Configuration();
    config.job().applyTo(job);
    Configuration local = new Configuration();
    config.job().applyLocalTo(local);

    assertThat(job.contains(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED))
        .as("a TaskManager option: a job submitted to a cluster leaves it to the cluster")
        .isFalse();
    assertThat(local.get(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED))
        .as("the --local cluster's TaskManager, under slow writers (docs/benchmarks.md)")
        .isTrue();
  }

  @Test
  void eachRuntimeFeatureReadsToItsDocumentedDefaults() {
    TallyConfig config = TallyConfig.read(ConfigSource.of(MINIMAL));

    assertThat(config.state())
        .isEqualTo(
            new StateConfig(
                "file:///var/tally/checkpoints",
                null,
                true,
                false,
                PredefinedOptions.FLASH_SSD_OPTIMIZED,
                true,
                PriorityQueueStateType.ROCKSDB,
                4L * 1024 * 1024,
                12,
                16));
    assertThat(config.checkpoints())
        .isEqualTo(
            new CheckpointConfig(
                Duration.ofSeconds(10),
                Duration.ofMinutes(2),
                Duration.ZERO,
                1,
                true,
                Duration.ZERO,
                true,
                3,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION));
    assertThat(config.restart())
        .isEqualTo(
            new RestartConfig(
                Duration.ofMillis(100),
                Duration.ofMinutes(1),
                2.0,
                Duration.ofHours(1),
                0.1,
                Integer.MAX_VALUE));
    assertThat(config.job()).isEqualTo(new JobConfig("tally", 0, 128, true, 512L * 1024 * 1024));
    assertThat(config.aggregation())
        .isEqualTo(
            new AggregationSettings(
                TumblingWindows.of(Duration.ofHours(1)),
                Duration.ZERO,
                Duration.ofHours(24),
                Duration.ZERO,
                100_000));
  }

  @Test
  void everyKeyMapsToItsSetting() throws Exception {
    Path file =
        yaml(
            """
            kafka:
              bootstrap-servers: b1:9092,b2:9092
              properties:
                security.protocol: SASL_SSL
                sasl.jaas.config: ${JAAS}
              source:
                topics: [a, b]
                group-id: g
                startup-mode: timestamp
                startup-timestamp: 2026-11-01T00:00:00Z
                committed-fallback: latest
                bounded: true
                partition-discovery-interval: 1m
                properties:
                  fetch.min.bytes: "1024"
              dead-letter:
                topic: dead
                transactional-id-prefix: tx-prefix
                transaction-timeout: 30m
                recoverable-downtime: 10m
                pool-transactional-ids: true
                properties:
                  linger.ms: "5"
            input:
              max-record-bytes: 512KiB
              max-future-skew: 30m
            watermarks:
              out-of-orderness: 2s
              idle-timeout: 0s
            aggregation:
              window-size: 30m
              window-offset: 5m
              allowed-lateness: 10m
              dedupe-retention: 48h
              early-firing-interval: 15s
              write-back-users: 5000
              dedupe-full-ids: true
            state:
              checkpoint-directory: s3://bucket/checkpoints
              savepoint-directory: s3://bucket/savepoints
              incremental: false
              local-recovery: true
              rocksdb:
                predefined-options: spinning-disk-optimized
                managed-memory: false
                timers: heap
                write-buffer-size: 16MiB
                write-buffers: 3
                level0-compaction-trigger: 12
            checkpoints:
              interval: 30s
              timeout: 1m
              min-pause: 5s
              max-concurrent: 2
              unaligned: false
              aligned-timeout: 0s
              interruptible-timers: false
              tolerable-failures: 5
              retention: delete-on-cancellation
            restart:
              initial-backoff: 2s
              max-backoff: 5m
              backoff-multiplier: 1.5
              reset-backoff-threshold: 2h
              jitter: 0.2
              attempts: 10
            job:
              name: spend
              parallelism: 4
              max-parallelism: 256
              object-reuse: false
              local-managed-memory: 1gib
            iceberg:
              catalog:
                type: rest
                name: lake
                uri: https://catalog.example/api/catalog
                warehouse: prod
                credential: ${ICEBERG_CREDENTIAL}
                oauth2-server-uri: https://catalog.example/api/catalog/v1/oauth/tokens
                scope: PRINCIPAL_ROLE:ALL
                properties:
                  header.X-Iceberg-Access-Delegation: vended-credentials
              storage:
                type: s3
                s3-endpoint: http://127.0.0.1:9000
                s3-path-style-access: true
                region: eu-west-1
              namespace: finance
              table: spend_by_hour
              user-id-buckets: 32
              target-file-size: 64MiB
              distribution: none
              write-parallelism: 3
              maintenance:
                enabled: false
                compact-every-checkpoints: 5
                compact-interval: 2m
                data-file-threshold: 4
                delete-file-threshold: 2
                expire-every-checkpoints: 7
                retain-last-snapshots: 50
                max-snapshot-age: 30m
            """);

    TallyConfig config =
        TallyConfig.read(
            ConfigSource.load(
                file,
                List.of("job.parallelism=6"),
                Map.of("JAAS", "s3cr3t", "ICEBERG_CREDENTIAL", "id:shh")::get));

    var source = config.kafka().source();
    assertThat(source.bootstrapServers()).isEqualTo("b1:9092,b2:9092");
    assertThat(source.topics()).containsExactly("a", "b");
    assertThat(source.groupId()).isEqualTo("g");
    assertThat(source.startupMode()).isEqualTo(StartupMode.TIMESTAMP);
    assertThat(source.startupTimestamp()).isEqualTo(Instant.parse("2026-11-01T00:00:00Z"));
    assertThat(source.committedFallback()).isEqualTo(StartupMode.LATEST);
    assertThat(source.bounded()).isTrue();
    assertThat(source.partitionDiscoveryInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(source.clientProperties())
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.jaas.config", "s3cr3t")
        .containsEntry("fetch.min.bytes", "1024");
    assertThat(source.maxRecordBytes()).isEqualTo(512 * 1024);
    assertThat(source.maxFutureSkew()).isEqualTo(Duration.ofMinutes(30));
    assertThat(source.outOfOrderness()).isEqualTo(Duration.ofSeconds(2));
    assertThat(source.idleTimeout()).isZero();
    var dlq = config.kafka().deadLetter();
    assertThat(dlq.topic()).isEqualTo("dead");
    assertThat(dlq.transactionalIdPrefix()).isEqualTo("tx-prefix");
    assertThat(dlq.transactionTimeout()).isEqualTo(Duration.ofMinutes(30));
    assertThat(config.effective()).containsEntry("kafka.dead-letter.recoverable-downtime", "10m");
    assertThat(dlq.poolTransactionalIds()).isTrue();
    assertThat(dlq.producerProperties())
        .containsEntry("linger.ms", "5")
        .containsEntry("security.protocol", "SASL_SSL");
    var aggregation = config.aggregation();
    assertThat(aggregation.windows().size()).isEqualTo(Duration.ofMinutes(30));
    assertThat(aggregation.windows().offset()).isEqualTo(Duration.ofMinutes(5));
    assertThat(aggregation.allowedLateness()).isEqualTo(Duration.ofMinutes(10));
    assertThat(aggregation.dedupeRetention()).isEqualTo(Duration.ofHours(48));
    assertThat(aggregation.earlyFiringInterval()).isEqualTo(Duration.ofSeconds(15));
    assertThat(aggregation.writeBackUsers()).isEqualTo(5000);
    assertThat(aggregation.dedupeFullIds()).isTrue();
    assertThat(config.state())
        .isEqualTo(
            new StateConfig(
                "s3://bucket/checkpoints",
                "s3://bucket/savepoints",
                false,
                true,
                PredefinedOptions.SPINNING_DISK_OPTIMIZED,
                false,
                PriorityQueueStateType.HEAP,
                16L * 1024 * 1024,
                3,
                12));
    assertThat(config.checkpoints())
        .isEqualTo(
            new CheckpointConfig(
                Duration.ofSeconds(30),
                Duration.ofMinutes(1),
                Duration.ofSeconds(5),
                2,
                false,
                Duration.ZERO,
                false,
                5,
                ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION));
    assertThat(config.restart())
        .isEqualTo(
            new RestartConfig(
                Duration.ofSeconds(2), Duration.ofMinutes(5), 1.5, Duration.ofHours(2), 0.2, 10));
    assertThat(config.job()).isEqualTo(new JobConfig("spend", 6, 256, false, 1024L * 1024 * 1024));
    var iceberg = config.iceberg();
    assertThat(iceberg.catalog().type()).isEqualTo(CatalogType.REST);
    assertThat(iceberg.catalog().name()).isEqualTo("lake");
    assertThat(iceberg.catalog().uri()).isEqualTo("https://catalog.example/api/catalog");
    assertThat(iceberg.catalog().warehouse()).isEqualTo("prod");
    assertThat(iceberg.catalog().restCredential()).isEqualTo("id:shh");
    assertThat(iceberg.catalog().oauth2ServerUri())
        .isEqualTo("https://catalog.example/api/catalog/v1/oauth/tokens");
    assertThat(iceberg.catalog().oauth2Scope()).isEqualTo("PRINCIPAL_ROLE:ALL");
    assertThat(iceberg.catalog().properties())
        .containsEntry("header.X-Iceberg-Access-Delegation", "vended-credentials");
    assertThat(iceberg.storage())
        .isEqualTo(StorageConfig.s3("http://127.0.0.1:9000", true, "eu-west-1"));
    assertThat(iceberg.tableIdentifier()).hasToString("finance.spend_by_hour");
    assertThat(iceberg.userIdBuckets()).isEqualTo(32);
    assertThat(iceberg.targetFileSizeBytes()).isEqualTo(64L * 1024 * 1024);
    assertThat(iceberg.distribution()).isEqualTo(WriteDistribution.NONE);
    assertThat(iceberg.writeParallelism()).isEqualTo(3);
    var maintenance = iceberg.maintenance();
    assertThat(maintenance.enabled()).isFalse();
    assertThat(maintenance.compactEveryCheckpoints()).isEqualTo(5);
    assertThat(maintenance.compactInterval()).isEqualTo(Duration.ofMinutes(2));
    assertThat(maintenance.dataFileThreshold()).isEqualTo(4);
    assertThat(maintenance.deleteFileThreshold()).isEqualTo(2);
    assertThat(maintenance.expireEveryCheckpoints()).isEqualTo(7);
    assertThat(maintenance.retainLastSnapshots()).isEqualTo(50);
    assertThat(maintenance.maxSnapshotAge()).isEqualTo(Duration.ofMinutes(30));
    assertThat(config.effective())
        .containsEntry("iceberg.catalog.credential", "******")
        .containsEntry("kafka.properties.sasl.jaas.config", "******")
        .containsEntry("job.parallelism", "6");
    assertThat(config.effective().values()).doesNotContain("s3cr3t", "id:shh");
  }

  @Test
  void aBadFileReportsAllItsProblemsAtOnceEachWithItsKey() throws Exception {
    Path file =
        yaml(
            """
            kafka:
              source:
                topics: [a]
                topic-pattern: "b.*"
                startup-mode: yesterday
              dead-letter:
                transaction-timeout: 1m
            watermarks:
              out-of-orderness: soon
            aggregation:
              dedupe-retention: 30m
              write-back-users: -1
              dedupe-full-ids: sometimes
            state:
              checkpoint-directory: /no/scheme
            checkpoints:
              max-concurrent: 0
              unaligned: maybe
            job:
              parallelism: 500
              max-parallelism: 256
              colour: blue
            """);

    assertThatThrownBy(() -> TallyConfig.read(ConfigSource.load(file, List.of(), name -> null)))
        .isInstanceOf(ConfigurationException.class)
        .satisfies(
            e ->
                assertThat(((ConfigurationException) e).problems())
                    .anySatisfy(
                        p -> assertThat(p).startsWith("kafka.bootstrap-servers: must be set"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith(
                                    "kafka.source.topics, kafka.source.topic-pattern: set one"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith(
                                    "kafka.source.startup-mode: \"yesterday\" is invalid: expected one of earliest, latest, committed, timestamp"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith("watermarks.out-of-orderness: \"soon\" is invalid"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith("aggregation.*: dedupe retention PT30M is shorter"))
                    .anySatisfy(
                        p -> assertThat(p).startsWith("aggregation.write-back-users: must be"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith(
                                    "aggregation.dedupe-full-ids: \"sometimes\" is invalid"))
                    .anySatisfy(
                        p -> assertThat(p).startsWith("state.checkpoint-directory: must be a URI"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith("checkpoints.max-concurrent: must be between 1 and 16"))
                    .anySatisfy(
                        p ->
                            assertThat(p).startsWith("checkpoints.unaligned: \"maybe\" is invalid"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith("job.parallelism: must not exceed job.max-parallelism"))
                    .anySatisfy(
                        p ->
                            assertThat(p)
                                .startsWith(
                                    "kafka.dead-letter.transaction-timeout, kafka.dead-letter.recoverable-downtime,"
                                        + " checkpoints.interval, checkpoints.min-pause, checkpoints.timeout,"
                                        + " checkpoints.tolerable-failures, restart.max-backoff, restart.jitter:"
                                        + " the dead-letter transaction timeout PT1M is shorter"))
                    .anySatisfy(p -> assertThat(p).startsWith("job.colour: unknown key"))
                    .hasSizeGreaterThanOrEqualTo(12))
        .hasMessageStartingWith("Invalid configuration (");
  }

  @Test
  void twoJobsOfDifferentNamesShareNeitherConsumerGroupNorTransactionalIdsNorTableOwner() {
    TallyConfig eu = TallyConfig.read(ConfigSource.of(withJobName("payments-eu")));
    TallyConfig us = TallyConfig.read(ConfigSource.of(withJobName("payments-us")));

    assertThat(eu.kafka().source().groupId()).isEqualTo("payments-eu");
    assertThat(us.kafka().source().groupId()).isEqualTo("payments-us");
    assertThat(eu.kafka().deadLetter().transactionalIdPrefix()).isEqualTo("payments-eu-dlq");
    assertThat(us.kafka().deadLetter().transactionalIdPrefix()).isEqualTo("payments-us-dlq");
    assertThat(eu.iceberg().writer()).isEqualTo("payments-eu");
    assertThat(us.iceberg().writer()).isEqualTo("payments-us");
    TallyConfig unnamed = TallyConfig.read(ConfigSource.of(MINIMAL));
    assertThat(unnamed.kafka().source().groupId()).isEqualTo("tally");
    assertThat(unnamed.kafka().deadLetter().transactionalIdPrefix()).isEqualTo("tally-dlq");
    assertThat(unnamed.iceberg().writer()).isEqualTo("tally");
  }

  private static Map<String, String> withJobName(String name) {
    Map<String, String> values = new java.util.HashMap<>(MINIMAL);
    values.put(JobConfig.NAME.name(), name);
    return values;
  }

  @Test
  void theTransactionTimeoutMustCoverTheRestartBackoffAndTheRecoverableDowntime() {
    // 4 × (10 s + 2 min) = 8 min 40 s of checkpoints fit 10 min; the default 2 min downtime and
    // a restart delay of up to 1 min 6 s after them do not.
    Map<String, String> values = new java.util.HashMap<>(MINIMAL);
    values.put(DeadLetterConfig.TRANSACTION_TIMEOUT.name(), "10m");
    assertThatThrownBy(() -> TallyConfig.read(ConfigSource.of(values)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining(
            "kafka.dead-letter.transaction-timeout, kafka.dead-letter.recoverable-downtime,"
                + " checkpoints.interval, checkpoints.min-pause, checkpoints.timeout,"
                + " checkpoints.tolerable-failures, restart.max-backoff, restart.jitter: the"
                + " dead-letter transaction timeout PT10M is shorter than the longest a"
                + " transaction may wait for its commit, PT11M46S");

    values.put(DeadLetterConfig.RECOVERABLE_DOWNTIME.name(), "10s");
    assertThat(TallyConfig.read(ConfigSource.of(values)).kafka().deadLetter().transactionTimeout())
        .as("a shorter expected downtime fits: 8 min 40 s + 66 s + 10 s")
        .isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void missingEnvironmentVariablesAndMalformedOverridesAreNamed() {
    assertThatThrownBy(
            () ->
                ConfigSource.load(
                    null,
                    List.of("kafka.bootstrap-servers=${BROKERS}", "no-equals-sign"),
                    name -> null))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContainingAll(
            "kafka.bootstrap-servers: environment variable BROKERS is not set",
            "--set no-equals-sign: expected key=value");
  }

  @Test
  void environmentDefaultsApplyWhenTheVariableIsUnset() {
    ConfigSource source =
        ConfigSource.load(
            null, List.of("kafka.bootstrap-servers=${BROKERS:-127.0.0.1:9092}"), name -> null);

    assertThat(source.values()).containsEntry("kafka.bootstrap-servers", "127.0.0.1:9092");
  }
}
