package dev.tally.runtime.config;

import dev.tally.adapters.iceberg.CatalogOptions;
import dev.tally.adapters.iceberg.CatalogType;
import dev.tally.adapters.iceberg.IcebergSinkOptions;
import dev.tally.adapters.iceberg.MaintenanceOptions;
import dev.tally.adapters.iceberg.StorageOptions;
import dev.tally.adapters.iceberg.WriteDistribution;
import java.time.Duration;

/** Iceberg keys: catalog, storage, the output table and its maintenance (SPEC "Output table"). */
public final class IcebergConfig {

  /** Catalog kind: hadoop (local warehouse, the embedded default), rest, jdbc. Default hadoop. */
  public static final String CATALOG_TYPE = "iceberg.catalog.type";

  /** Catalog name inside Flink. Default {@code tally}. */
  public static final String CATALOG_NAME = "iceberg.catalog.name";

  /** REST: the server's base URL; JDBC: the {@code jdbc:} URL. */
  public static final String CATALOG_URI = "iceberg.catalog.uri";

  /**
   * Warehouse: hadoop, a local directory or file: URI (required); jdbc, the table root; rest,
   * optional.
   */
  public static final String CATALOG_WAREHOUSE = "iceberg.catalog.warehouse";

  /** REST bearer token; secret: set it as {@code ${TALLY_ICEBERG_REST_TOKEN}}. */
  public static final String CATALOG_TOKEN = "iceberg.catalog.token";

  /** REST OAuth2 client credentials {@code id:secret} (Polaris); secret, from the environment. */
  public static final String CATALOG_CREDENTIAL = "iceberg.catalog.credential";

  /** REST OAuth2 token endpoint for the credential; default the catalog's. */
  public static final String CATALOG_OAUTH2_SERVER_URI = "iceberg.catalog.oauth2-server-uri";

  /** REST OAuth2 scope, e.g. {@code PRINCIPAL_ROLE:ALL}. */
  public static final String CATALOG_SCOPE = "iceberg.catalog.scope";

  /** JDBC user. */
  public static final String CATALOG_JDBC_USER = "iceberg.catalog.jdbc-user";

  /** JDBC password; secret, from the environment. */
  public static final String CATALOG_JDBC_PASSWORD = "iceberg.catalog.jdbc-password";

  /** Further catalog properties passed to Iceberg unchanged. */
  public static final String CATALOG_PROPERTIES = "iceberg.catalog.properties.";

  /**
   * Storage: local or s3 ({@code S3FileIO}; credentials from the AWS SDK's default chain, never
   * from here). Default local.
   */
  public static final String STORAGE_TYPE = "iceberg.storage.type";

  /** S3-compatible endpoint, {@code http(s)://host:port}; empty for AWS S3. */
  public static final String STORAGE_S3_ENDPOINT = "iceberg.storage.s3-endpoint";

  /** Path-style bucket addressing, as most S3-compatible stores need. Default false. */
  public static final String STORAGE_S3_PATH_STYLE_ACCESS = "iceberg.storage.s3-path-style-access";

  /** AWS region; empty for the SDK's default region chain. */
  public static final String STORAGE_REGION = "iceberg.storage.region";

  /** Namespace of the output table. Default {@code analytics}. */
  public static final String NAMESPACE = "iceberg.namespace";

  /** Output table name. Default {@code user_hourly_spending}. */
  public static final String TABLE = "iceberg.table";

  /** N of {@code bucket(N, user_id)} in a new table's partition spec. Default 16. */
  public static final String USER_ID_BUCKETS = "iceberg.user-id-buckets";

  /** {@code write.target-file-size-bytes} of a new table. Default 128MiB. */
  public static final String TARGET_FILE_SIZE = "iceberg.target-file-size";

  /** Row distribution to writers: none, hash, range. Default hash. */
  public static final String DISTRIBUTION = "iceberg.distribution";

  /** Writer parallelism; 0 for the parallelism of the incoming stream. Default 0. */
  public static final String WRITE_PARALLELISM = "iceberg.write-parallelism";

  /**
   * Tally's in-job table maintenance: compaction that also removes the delete files it makes
   * dangling, and snapshot expiry that keeps what a restore needs. Default true.
   */
  public static final String MAINTENANCE_ENABLED = "iceberg.maintenance.enabled";

  /** Look for partitions to compact after this many completed checkpoints. Default 10. */
  public static final String MAINTENANCE_COMPACT_EVERY_CHECKPOINTS =
      "iceberg.maintenance.compact-every-checkpoints";

  /** Also look for partitions to compact when this much time has passed. Default 10m. */
  public static final String MAINTENANCE_COMPACT_INTERVAL = "iceberg.maintenance.compact-interval";

  /** Compact a partition once it has this many live data files (at least 2). Default 2. */
  public static final String MAINTENANCE_DATA_FILE_THRESHOLD =
      "iceberg.maintenance.data-file-threshold";

  /** Compact a partition once this many live delete files apply to its data. Default 1. */
  public static final String MAINTENANCE_DELETE_FILE_THRESHOLD =
      "iceberg.maintenance.delete-file-threshold";

  /** Expire snapshots after this many completed checkpoints. Default 10. */
  public static final String MAINTENANCE_EXPIRE_EVERY_CHECKPOINTS =
      "iceberg.maintenance.expire-every-checkpoints";

  /** Snapshots always kept. Default 100. */
  public static final String MAINTENANCE_RETAIN_LAST = "iceberg.maintenance.retain-last-snapshots";

  /**
   * Snapshots older than this (beyond the retained ones) expire; the job's last commit and what
   * follows it never do. Default 1h.
   */
  public static final String MAINTENANCE_MAX_SNAPSHOT_AGE = "iceberg.maintenance.max-snapshot-age";

  private IcebergConfig() {}

  static IcebergSinkOptions read(ConfigReader r) {
    CatalogType catalogType = r.enumValue(CATALOG_TYPE, CatalogType.class, CatalogType.HADOOP);
    CatalogOptions.Builder catalog = CatalogOptions.builder().type(catalogType);
    r.optionalString(CATALOG_NAME).ifPresent(catalog::name);
    r.optionalString(CATALOG_URI).ifPresent(catalog::uri);
    r.optionalString(CATALOG_WAREHOUSE).ifPresent(catalog::warehouse);
    r.optionalString(CATALOG_TOKEN).ifPresent(catalog::restToken);
    r.optionalString(CATALOG_CREDENTIAL).ifPresent(catalog::restCredential);
    r.optionalString(CATALOG_OAUTH2_SERVER_URI).ifPresent(catalog::oauth2ServerUri);
    r.optionalString(CATALOG_SCOPE).ifPresent(catalog::oauth2Scope);
    r.optionalString(CATALOG_JDBC_USER).ifPresent(catalog::jdbcUser);
    r.optionalString(CATALOG_JDBC_PASSWORD).ifPresent(catalog::jdbcPassword);
    r.passThrough(CATALOG_PROPERTIES).forEach(catalog::property);

    StorageOptions.Type storageType =
        r.enumValue(STORAGE_TYPE, StorageOptions.Type.class, StorageOptions.Type.LOCAL);
    String endpoint = r.optionalString(STORAGE_S3_ENDPOINT).orElse(null);
    boolean pathStyle = r.bool(STORAGE_S3_PATH_STYLE_ACCESS, false);
    String region = r.optionalString(STORAGE_REGION).orElse(null);
    StorageOptions storage =
        storageType == StorageOptions.Type.S3
            ? StorageOptions.s3(endpoint, pathStyle, region)
            : new StorageOptions(StorageOptions.Type.LOCAL, endpoint, pathStyle, region);

    MaintenanceOptions maintenance =
        MaintenanceOptions.builder()
            .enabled(r.bool(MAINTENANCE_ENABLED, true))
            .compactEveryCheckpoints(
                r.integer(MAINTENANCE_COMPACT_EVERY_CHECKPOINTS, 10, 1, 1_000_000))
            .compactInterval(r.duration(MAINTENANCE_COMPACT_INTERVAL, Duration.ofMinutes(10)))
            .dataFileThreshold(r.integer(MAINTENANCE_DATA_FILE_THRESHOLD, 2, 2, 1_000_000))
            .deleteFileThreshold(r.integer(MAINTENANCE_DELETE_FILE_THRESHOLD, 1, 1, 1_000_000))
            .expireEveryCheckpoints(
                r.integer(MAINTENANCE_EXPIRE_EVERY_CHECKPOINTS, 10, 1, 1_000_000))
            .retainLastSnapshots(r.integer(MAINTENANCE_RETAIN_LAST, 100, 1, 1_000_000))
            .maxSnapshotAge(r.duration(MAINTENANCE_MAX_SNAPSHOT_AGE, Duration.ofHours(1)))
            .build();

    String namespace = r.string(NAMESPACE, IcebergSinkOptions.DEFAULT_NAMESPACE);
    String table = r.string(TABLE, IcebergSinkOptions.DEFAULT_TABLE);
    int buckets = r.integer(USER_ID_BUCKETS, IcebergSinkOptions.DEFAULT_USER_ID_BUCKETS, 1, 65_536);
    long targetFileSize =
        r.bytes(TARGET_FILE_SIZE, IcebergSinkOptions.DEFAULT_TARGET_FILE_SIZE_BYTES);
    WriteDistribution distribution =
        r.enumValue(DISTRIBUTION, WriteDistribution.class, WriteDistribution.HASH);
    int writeParallelism = r.integer(WRITE_PARALLELISM, 0, 0, 32_768);
    return r.build(
        "iceberg.*",
        () ->
            IcebergSinkOptions.builder()
                .catalog(catalog.build())
                .storage(storage)
                .namespace(namespace)
                .table(table)
                .userIdBuckets(buckets)
                .targetFileSizeBytes(targetFileSize)
                .distribution(distribution)
                .writeParallelism(writeParallelism)
                .maintenance(maintenance)
                .build());
  }
}
