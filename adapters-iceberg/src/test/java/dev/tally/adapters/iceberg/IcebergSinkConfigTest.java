package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

class IcebergSinkOptionsTest {

  private static CatalogOptions hadoop() {
    return CatalogOptions.builder().warehouse("file:warehouse").build();
  }

  @Test
  void defaultsFollowTheSpec() {
    IcebergSinkOptions options = IcebergSinkOptions.builder().catalog(hadoop()).build();

    assertThat(options.tableIdentifier())
        .isEqualTo(TableIdentifier.of("analytics", "user_hourly_spending"));
    assertThat(options.catalog().type()).isEqualTo(CatalogType.HADOOP);
    assertThat(options.catalog().name()).isEqualTo("tally");
    assertThat(options.storage()).isEqualTo(StorageOptions.local());
    assertThat(options.userIdBuckets()).isEqualTo(16);
    assertThat(options.targetFileSizeBytes()).isEqualTo(128L * 1024 * 1024);
    assertThat(options.distribution()).isEqualTo(WriteDistribution.HASH);
    assertThat(options.writeParallelism()).isZero();
    assertThat(options.uidSuffix()).isEqualTo("tally-iceberg-sink");
    MaintenanceOptions maintenance = options.maintenance();
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
  void aNestedNamespaceHasOneLevelPerDot() {
    IcebergSinkOptions options =
        IcebergSinkOptions.builder().catalog(hadoop()).namespace("lake.analytics").build();

    assertThat(options.tableIdentifier().namespace().levels()).containsExactly("lake", "analytics");
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    IcebergSinkOptions.Builder builder =
        IcebergSinkOptions.builder()
            .catalog(
                CatalogOptions.builder()
                    .type(CatalogType.REST)
                    .name(" ")
                    .restToken("t")
                    .restCredential("id:secret")
                    .jdbcPassword("pw")
                    .property("warehouse", "sneaky")
                    .property("s3.secret-access-key", "nope")
                    .build())
            .storage(StorageOptions.s3("ftp://store", true, " "))
            .namespace("a..b")
            .table("x.y")
            .userIdBuckets(0)
            .targetFileSizeBytes(10)
            .writeParallelism(-1)
            .uidSuffix("")
            .maintenance(
                MaintenanceOptions.builder()
                    .compactEveryCheckpoints(0)
                    .dataFileThreshold(1)
                    .maxSnapshotAge(Duration.ofMillis(10))
                    .build());

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll(
            "catalog.name must be set",
            "catalog.uri must be set for catalog.type REST",
            "set at most one of catalog.restToken and catalog.restCredential",
            "catalog.jdbcUser and jdbcPassword apply to catalog.type JDBC only",
            "catalog property warehouse is set by its own option",
            "catalog property s3.secret-access-key is not accepted",
            "storage.s3Endpoint must be an http(s)://host[:port] URL",
            "storage.region must not be blank",
            "namespace must be set, with no empty level",
            "table must be set, without dots",
            "userIdBuckets must be positive",
            "targetFileSizeBytes must be at least 1 MiB",
            "writeParallelism must not be negative",
            "uidSuffix must be set",
            "maintenance.compactEveryCheckpoints must be positive",
            "maintenance.dataFileThreshold must be at least 2",
            "maintenance.maxSnapshotAge must be at least 1 s")
        .message()
        .doesNotContain("id:secret")
        .doesNotContain("nope");
  }

  @Test
  void eachCatalogTypeRequiresItsOwnKeys() {
    assertThatThrownBy(() -> IcebergSinkOptions.builder().build())
        .hasMessageContaining("catalog.warehouse must be set for catalog.type HADOOP");
    assertThatThrownBy(
            () ->
                IcebergSinkOptions.builder()
                    .catalog(CatalogOptions.builder().warehouse("s3://bucket/wh").build())
                    .storage(StorageOptions.s3("http://127.0.0.1:9000", true, "us-east-1"))
                    .build())
        .hasMessageContainingAll(
            "catalog.warehouse must be a local directory or file: URI for catalog.type HADOOP",
            "storage.type S3 needs catalog.type REST or JDBC");
    assertThatThrownBy(
            () ->
                IcebergSinkOptions.builder()
                    .catalog(
                        CatalogOptions.builder()
                            .type(CatalogType.JDBC)
                            .uri("postgres://db")
                            .oauth2Scope("x")
                            .build())
                    .build())
        .hasMessageContainingAll(
            "catalog.uri must be a jdbc: URL for catalog.type JDBC",
            "catalog.warehouse must be set for catalog.type JDBC",
            "catalog.restToken, restCredential, oauth2ServerUri and oauth2Scope need REST");
  }

  @Test
  void restWithPolarisStyleClientCredentialsMapsToIcebergsAuthProperties() {
    IcebergSinkOptions options =
        IcebergSinkOptions.builder()
            .catalog(
                CatalogOptions.builder()
                    .type(CatalogType.REST)
                    .uri("https://polaris.example:8181/api/catalog")
                    .warehouse("tally")
                    .restCredential("client:s3cr3t")
                    .oauth2ServerUri("https://polaris.example:8181/api/catalog/v1/oauth/tokens")
                    .oauth2Scope("PRINCIPAL_ROLE:ALL")
                    .property("header.X-Iceberg-Access-Delegation", "vended-credentials")
                    .build())
            .storage(StorageOptions.s3("http://127.0.0.1:9000", true, "us-east-1"))
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
    CatalogOptions jdbc =
        CatalogOptions.builder()
            .type(CatalogType.JDBC)
            .uri("jdbc:postgresql://db:5432/iceberg")
            .warehouse("s3://lake/warehouse")
            .secretsFromEnvironment(
                Map.of(
                    CatalogOptions.ENV_JDBC_USER, "tally",
                    CatalogOptions.ENV_JDBC_PASSWORD, "hunter2"))
            .property("jdbc.sslpassword", "hunter3")
            .build();
    CatalogOptions rest =
        CatalogOptions.builder()
            .type(CatalogType.REST)
            .uri("http://127.0.0.1:8181")
            .secretsFromEnvironment(Map.of(CatalogOptions.ENV_REST_TOKEN, "eyJhbGciOi"))
            .build();
    IcebergSinkOptions options =
        IcebergSinkOptions.builder()
            .catalog(jdbc)
            .storage(StorageOptions.s3(null, false, null))
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
