package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.ports.config.ConfigReader;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

class IcebergSinkConfigTest {

  private static CatalogConfig hadoop() {
    return CatalogConfig.builder().warehouse("file:warehouse").build();
  }

  @Test
  void defaultsFollowTheSpec() {
    IcebergSinkConfig options = IcebergSinkConfig.builder().catalog(hadoop()).build();

    assertThat(options.tableIdentifier())
        .isEqualTo(TableIdentifier.of("analytics", "user_hourly_spending"));
    assertThat(options.catalog().type()).isEqualTo(CatalogType.HADOOP);
    assertThat(options.catalog().name()).isEqualTo("tally");
    assertThat(options.storage()).isEqualTo(StorageConfig.local());
    assertThat(options.userIdBuckets()).isEqualTo(16);
    assertThat(options.targetFileSizeBytes()).isEqualTo(128L * 1024 * 1024);
    assertThat(options.distribution()).isEqualTo(WriteDistribution.HASH);
    assertThat(options.writeParallelism()).isZero();
    assertThat(options.uidSuffix()).isEqualTo("tally-iceberg-sink");
    MaintenanceConfig maintenance = options.maintenance();
    assertThat(maintenance.enabled()).isTrue();
    assertThat(maintenance.compactEveryCheckpoints()).isEqualTo(10);
    assertThat(maintenance.compactInterval()).isEqualTo(Duration.ofMinutes(10));
    assertThat(maintenance.dataFileThreshold()).isEqualTo(2);
    assertThat(maintenance.deleteFileThreshold()).isEqualTo(1);
    assertThat(maintenance.expireEveryCheckpoints()).isEqualTo(10);
    assertThat(maintenance.retainLastSnapshots()).isEqualTo(100);
    assertThat(maintenance.maxSnapshotAge()).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void readingNothingButTheWarehouseGivesTheBuildersDefaults() {
    ConfigReader r = new ConfigReader(Map.of("iceberg.catalog.warehouse", "file:warehouse"));

    assertThat(IcebergSinkConfig.read(r, "tally"))
        .isEqualTo(IcebergSinkConfig.builder().catalog(hadoop()).build());
    assertThat(r.problems()).isEmpty();
  }

  @Test
  void everyKeyMapsToItsSetting() {
    ConfigReader r =
        new ConfigReader(
            Map.ofEntries(
                Map.entry("iceberg.catalog.type", "jdbc"),
                Map.entry("iceberg.catalog.name", "lake"),
                Map.entry("iceberg.catalog.uri", "jdbc:postgresql://db:5432/iceberg"),
                Map.entry("iceberg.catalog.warehouse", "s3://lake/warehouse"),
                Map.entry("iceberg.catalog.jdbc-user", "tally"),
                Map.entry("iceberg.catalog.jdbc-password", "hunter2"),
                Map.entry("iceberg.catalog.properties.jdbc.schema-version", "V1"),
                Map.entry("iceberg.storage.type", "s3"),
                Map.entry("iceberg.storage.s3-endpoint", "http://127.0.0.1:9000"),
                Map.entry("iceberg.storage.s3-path-style-access", "true"),
                Map.entry("iceberg.storage.region", "eu-west-1"),
                Map.entry("iceberg.namespace", "finance"),
                Map.entry("iceberg.table", "spend"),
                Map.entry("iceberg.user-id-buckets", "32"),
                Map.entry("iceberg.target-file-size", "64MiB"),
                Map.entry("iceberg.distribution", "none"),
                Map.entry("iceberg.write-parallelism", "3"),
                Map.entry("iceberg.maintenance.enabled", "false"),
                Map.entry("iceberg.maintenance.compact-every-checkpoints", "5"),
                Map.entry("iceberg.maintenance.compact-interval", "2m"),
                Map.entry("iceberg.maintenance.data-file-threshold", "4"),
                Map.entry("iceberg.maintenance.delete-file-threshold", "2"),
                Map.entry("iceberg.maintenance.expire-every-checkpoints", "7"),
                Map.entry("iceberg.maintenance.retain-last-snapshots", "50"),
                Map.entry("iceberg.maintenance.max-snapshot-age", "30m"),
                Map.entry("iceberg.take-over", "true")));

    assertThat(IcebergSinkConfig.read(r, "payments"))
        .isEqualTo(
            new IcebergSinkConfig(
                new CatalogConfig(
                    CatalogType.JDBC,
                    "lake",
                    "jdbc:postgresql://db:5432/iceberg",
                    "s3://lake/warehouse",
                    null,
                    null,
                    null,
                    null,
                    "tally",
                    "hunter2",
                    Map.of("jdbc.schema-version", "V1")),
                StorageConfig.s3("http://127.0.0.1:9000", true, "eu-west-1"),
                "finance",
                "spend",
                32,
                64L * 1024 * 1024,
                WriteDistribution.NONE,
                3,
                IcebergSinkConfig.DEFAULT_UID_SUFFIX,
                new MaintenanceConfig(
                    false, 5, Duration.ofMinutes(2), 4, 2, 7, 50, Duration.ofMinutes(30)),
                "payments",
                true));
    assertThat(r.problems()).isEmpty();
    assertThat(r.effectiveConfiguration())
        .containsEntry("iceberg.catalog.jdbc-password", "******")
        .containsEntry("iceberg.catalog.jdbc-user", "tally");
  }

  @Test
  void aNestedNamespaceHasOneLevelPerDot() {
    IcebergSinkConfig options =
        IcebergSinkConfig.builder().catalog(hadoop()).namespace("lake.analytics").build();

    assertThat(options.tableIdentifier().namespace().levels()).containsExactly("lake", "analytics");
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    IcebergSinkConfig.Builder builder =
        IcebergSinkConfig.builder()
            .catalog(
                CatalogConfig.builder()
                    .type(CatalogType.REST)
                    .name(" ")
                    .restToken("t")
                    .restCredential("id:secret")
                    .jdbcPassword("pw")
                    .property("warehouse", "sneaky")
                    .property("s3.secret-access-key", "nope")
                    .build())
            .storage(StorageConfig.s3("ftp://store", true, " "))
            .namespace("a..b")
            .table("x.y")
            .userIdBuckets(0)
            .targetFileSizeBytes(10)
            .writeParallelism(-1)
            .uidSuffix("")
            .maintenance(
                MaintenanceConfig.builder()
                    .compactEveryCheckpoints(0)
                    .dataFileThreshold(1)
                    .maxSnapshotAge(Duration.ofMillis(10))
                    .build());

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll(
            "iceberg.catalog.name: must be set",
            "iceberg.catalog.uri: must be set for iceberg.catalog.type rest",
            "iceberg.catalog.token, iceberg.catalog.credential: set at most one of them",
            "iceberg.catalog.jdbc-user, iceberg.catalog.jdbc-password: apply to"
                + " iceberg.catalog.type jdbc only",
            "iceberg.catalog.properties.warehouse: is set by its own key",
            "iceberg.catalog.properties.s3.secret-access-key: is not accepted",
            "iceberg.storage.s3-endpoint: must be an http(s)://host[:port] URL",
            "iceberg.storage.region: must not be blank",
            "iceberg.namespace: must have no empty level",
            "iceberg.table: must have no dots",
            "iceberg.user-id-buckets: must be between 1 and 65536, not 0",
            "iceberg.target-file-size: must be at least 1MiB, not 10",
            "iceberg.write-parallelism: must be between 0 and 32768, not -1",
            "uidSuffix: must be set",
            "iceberg.maintenance.compact-every-checkpoints: must be between 1 and 1000000, not 0",
            "iceberg.maintenance.data-file-threshold: must be between 2 and 1000000, not 1",
            "iceberg.maintenance.max-snapshot-age: must be at least 1s, not 10ms")
        .message()
        .doesNotContain("id:secret")
        .doesNotContain("nope");
  }

  @Test
  void eachCatalogTypeRequiresItsOwnKeys() {
    assertThatThrownBy(() -> IcebergSinkConfig.builder().build())
        .hasMessageContaining(
            "iceberg.catalog.warehouse: must be set for iceberg.catalog.type hadoop");
    assertThatThrownBy(
            () ->
                IcebergSinkConfig.builder()
                    .catalog(CatalogConfig.builder().warehouse("s3://bucket/wh").build())
                    .storage(StorageConfig.s3("http://127.0.0.1:9000", true, "us-east-1"))
                    .build())
        .hasMessageContainingAll(
            "iceberg.catalog.warehouse: must be a local directory or file: URI for"
                + " iceberg.catalog.type hadoop",
            "iceberg.storage.type, iceberg.catalog.type: s3 storage needs a rest or jdbc catalog");
    assertThatThrownBy(
            () ->
                IcebergSinkConfig.builder()
                    .catalog(
                        CatalogConfig.builder()
                            .type(CatalogType.JDBC)
                            .uri("postgres://db")
                            .oauth2Scope("x")
                            .build())
                    .build())
        .hasMessageContainingAll(
            "iceberg.catalog.uri: must be a jdbc: URL for iceberg.catalog.type jdbc",
            "iceberg.catalog.warehouse: must be set for iceberg.catalog.type jdbc",
            "iceberg.catalog.token, iceberg.catalog.credential, iceberg.catalog.oauth2-server-uri,"
                + " iceberg.catalog.scope: apply to iceberg.catalog.type rest only");
  }

  @Test
  void restWithPolarisStyleClientCredentialsMapsToIcebergsAuthProperties() {
    IcebergSinkConfig options =
        IcebergSinkConfig.builder()
            .catalog(
                CatalogConfig.builder()
                    .type(CatalogType.REST)
                    .uri("https://polaris.example:8181/api/catalog")
                    .warehouse("tally")
                    .restCredential("client:s3cr3t")
                    .oauth2ServerUri("https://polaris.example:8181/api/catalog/v1/oauth/tokens")
                    .oauth2Scope("PRINCIPAL_ROLE:ALL")
                    .property("header.X-Iceberg-Access-Delegation", "vended-credentials")
                    .build())
            .storage(StorageConfig.s3("http://127.0.0.1:9000", true, "us-east-1"))
            .build();

    assertThat(IcebergCatalogs.properties(options))
        .containsEntry("uri", "https://polaris.example:8181/api/catalog")
        .containsEntry("warehouse", "tally")
        .containsEntry("credential", "client:s3cr3t")
        .containsEntry(
            "oauth2-server-uri", "https://polaris.example:8181/api/catalog/v1/oauth/tokens")
        .containsEntry("scope", "PRINCIPAL_ROLE:ALL")
        .containsEntry("header.X-Iceberg-Access-Delegation", "vended-credentials")
        .containsEntry("io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
        .containsEntry("s3.endpoint", "http://127.0.0.1:9000")
        .containsEntry("s3.path-style-access", "true")
        .containsEntry("client.region", "us-east-1")
        .doesNotContainKeys("token", "s3.access-key-id", "s3.secret-access-key");
  }

  @Test
  void secretsComeFromTheEnvironmentAndNeverShowInToString() {
    CatalogConfig jdbc =
        CatalogConfig.builder()
            .type(CatalogType.JDBC)
            .uri("jdbc:postgresql://db:5432/iceberg")
            .warehouse("s3://lake/warehouse")
            .secretsFromEnvironment(
                Map.of(
                    CatalogConfig.ENV_JDBC_USER, "tally",
                    CatalogConfig.ENV_JDBC_PASSWORD, "hunter2"))
            .property("jdbc.sslpassword", "hunter3")
            .build();
    CatalogConfig rest =
        CatalogConfig.builder()
            .type(CatalogType.REST)
            .uri("http://127.0.0.1:8181")
            .secretsFromEnvironment(Map.of(CatalogConfig.ENV_REST_TOKEN, "eyJhbGciOi"))
            .build();
    IcebergSinkConfig options =
        IcebergSinkConfig.builder()
            .catalog(jdbc)
            .storage(StorageConfig.s3(null, false, null))
            .build();

    assertThat(jdbc.jdbcUser()).isEqualTo("tally");
    assertThat(IcebergCatalogs.properties(options)).containsEntry("jdbc.password", "hunter2");
    assertThat(rest.restToken()).isEqualTo("eyJhbGciOi");
    assertThat(options.toString())
        .contains("jdbcUser=tally", "jdbcPassword=****", "jdbc.sslpassword=****")
        .doesNotContain("hunter2", "hunter3");
    assertThat(rest.toString()).contains("restToken=****").doesNotContain("eyJhbGciOi");
  }
}
