package dev.tally.adapters.iceberg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Everything the Iceberg spending sink needs, validated as a whole: {@link Builder#build()} reports
 * every problem at once, each naming its key. {@link #toString()} masks every secret, so the
 * effective options can be logged.
 *
 * @param catalog which catalog tracks the table and how to reach it
 * @param storage where data and metadata files live
 * @param namespace the table's namespace, levels separated by dots; created when absent
 * @param table the table's name in {@code namespace}; created when absent, checked when present
 * @param userIdBuckets the {@code N} of {@code bucket(N, user_id)} in the partition spec of a new
 *     table (an existing table keeps its own)
 * @param targetFileSizeBytes {@code write.target-file-size-bytes} of a new table: the size writers
 *     and compaction aim at
 * @param distribution how rows are shuffled to the writers
 * @param writeParallelism the number of writers; 0 for the parallelism of the incoming stream
 * @param uidSuffix the stable suffix of every sink operator's uid (writer, committer, maintenance):
 *     changing it orphans the sink's state in existing savepoints
 * @param maintenance Tally's in-job compaction and snapshot expiry
 */
public record IcebergSinkOptions(
    CatalogOptions catalog,
    StorageOptions storage,
    String namespace,
    String table,
    int userIdBuckets,
    long targetFileSizeBytes,
    WriteDistribution distribution,
    int writeParallelism,
    String uidSuffix,
    MaintenanceOptions maintenance) {

  /** SPEC default namespace. */
  public static final String DEFAULT_NAMESPACE = "analytics";

  /** SPEC default table name. */
  public static final String DEFAULT_TABLE = "user_hourly_spending";

  /** Default uid suffix of the sink's operators. */
  public static final String DEFAULT_UID_SUFFIX = "tally-iceberg-sink";

  /** Default bucket count of {@code user_id}. */
  public static final int DEFAULT_USER_ID_BUCKETS = 16;

  /** Default target file size: 128 MiB, ample for an hourly aggregate. */
  public static final long DEFAULT_TARGET_FILE_SIZE_BYTES = 128L * 1024 * 1024;

  public IcebergSinkOptions {
    List<String> problems = new ArrayList<>();
    if (catalog == null) {
      problems.add("catalog must be set");
    } else {
      problems.addAll(catalog.problems());
    }
    if (storage == null) {
      problems.add("storage must be set");
    } else {
      problems.addAll(storage.problems());
    }
    if (catalog != null
        && catalog.type() == CatalogType.HADOOP
        && storage != null
        && storage.type() == StorageOptions.Type.S3) {
      problems.add(
          "storage.type S3 needs catalog.type REST or JDBC: the Hadoop catalog keeps its metadata"
              + " on the local filesystem");
    }
    if (namespace == null
        || namespace.isBlank()
        || Arrays.stream(namespace.split("\\.", -1)).anyMatch(String::isBlank)) {
      problems.add("namespace must be set, with no empty level: " + namespace);
    }
    if (table == null || table.isBlank() || table.contains(".")) {
      problems.add("table must be set, without dots: " + table);
    }
    if (userIdBuckets <= 0) {
      problems.add("userIdBuckets must be positive, not " + userIdBuckets);
    }
    if (targetFileSizeBytes < 1024 * 1024) {
      problems.add("targetFileSizeBytes must be at least 1 MiB, not " + targetFileSizeBytes);
    }
    if (distribution == null) {
      problems.add("distribution must be set");
    }
    if (writeParallelism < 0) {
      problems.add("writeParallelism must not be negative, not " + writeParallelism);
    }
    if (uidSuffix == null || uidSuffix.isBlank()) {
      problems.add("uidSuffix must be set");
    }
    if (maintenance == null) {
      problems.add("maintenance must be set");
    } else {
      problems.addAll(maintenance.problems());
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "invalid Iceberg sink options: " + String.join("; ", problems));
    }
  }

  /**
   * A builder with the SPEC defaults: table {@value #DEFAULT_NAMESPACE}.{@value #DEFAULT_TABLE},
   * the embedded Hadoop catalog (whose warehouse must still be set), local storage, 16 buckets,
   * HASH distribution and maintenance on.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** The table's identifier in its catalog. */
  public TableIdentifier tableIdentifier() {
    return TableIdentifier.of(Namespace.of(namespace.split("\\.")), table);
  }

  /** Builds {@link IcebergSinkOptions}; setters reject {@code null}, {@link #build()} checks. */
  public static final class Builder {
    private CatalogOptions catalog = CatalogOptions.builder().build();
    private StorageOptions storage = StorageOptions.local();
    private String namespace = DEFAULT_NAMESPACE;
    private String table = DEFAULT_TABLE;
    private int userIdBuckets = DEFAULT_USER_ID_BUCKETS;
    private long targetFileSizeBytes = DEFAULT_TARGET_FILE_SIZE_BYTES;
    private WriteDistribution distribution = WriteDistribution.HASH;
    private int writeParallelism;
    private String uidSuffix = DEFAULT_UID_SUFFIX;
    private MaintenanceOptions maintenance = MaintenanceOptions.builder().build();

    private Builder() {}

    /** See {@link IcebergSinkOptions#catalog()}. */
    public Builder catalog(CatalogOptions value) {
      this.catalog = Objects.requireNonNull(value, "catalog");
      return this;
    }

    /** See {@link IcebergSinkOptions#storage()}. */
    public Builder storage(StorageOptions value) {
      this.storage = Objects.requireNonNull(value, "storage");
      return this;
    }

    /** See {@link IcebergSinkOptions#namespace()}. */
    public Builder namespace(String value) {
      this.namespace = Objects.requireNonNull(value, "namespace");
      return this;
    }

    /** See {@link IcebergSinkOptions#table()}. */
    public Builder table(String value) {
      this.table = Objects.requireNonNull(value, "table");
      return this;
    }

    /** See {@link IcebergSinkOptions#userIdBuckets()}. */
    public Builder userIdBuckets(int value) {
      this.userIdBuckets = value;
      return this;
    }

    /** See {@link IcebergSinkOptions#targetFileSizeBytes()}. */
    public Builder targetFileSizeBytes(long value) {
      this.targetFileSizeBytes = value;
      return this;
    }

    /** See {@link IcebergSinkOptions#distribution()}. */
    public Builder distribution(WriteDistribution value) {
      this.distribution = Objects.requireNonNull(value, "distribution");
      return this;
    }

    /** See {@link IcebergSinkOptions#writeParallelism()}. */
    public Builder writeParallelism(int value) {
      this.writeParallelism = value;
      return this;
    }

    /** See {@link IcebergSinkOptions#uidSuffix()}. */
    public Builder uidSuffix(String value) {
      this.uidSuffix = Objects.requireNonNull(value, "uidSuffix");
      return this;
    }

    /** See {@link IcebergSinkOptions#maintenance()}. */
    public Builder maintenance(MaintenanceOptions value) {
      this.maintenance = Objects.requireNonNull(value, "maintenance");
      return this;
    }

    /**
     * @throws IllegalArgumentException naming every problem found
     */
    public IcebergSinkOptions build() {
      return new IcebergSinkOptions(
          catalog,
          storage,
          namespace,
          table,
          userIdBuckets,
          targetFileSizeBytes,
          distribution,
          writeParallelism,
          uidSuffix,
          maintenance);
    }
  }
}
