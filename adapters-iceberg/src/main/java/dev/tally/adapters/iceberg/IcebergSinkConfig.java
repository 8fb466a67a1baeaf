package dev.tally.adapters.iceberg;

import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigReader;
import dev.tally.ports.config.InvalidConfigException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Everything the Iceberg spending sink needs, and the declarations of its keys (docs/behaviour.md
 * "Output table"). The constructor checks the whole, catalog, storage and maintenance included, and
 * reports every problem at once, each naming its key. {@link #toString()} masks every secret, so
 * the settings can be logged.
 *
 * @param catalog which catalog tracks the table and how to reach it
 * @param storage where data and metadata files live
 * @param namespace see {@link #NAMESPACE}; levels separated by dots; created when absent
 * @param table see {@link #TABLE}; created when absent, checked when present
 * @param userIdBuckets see {@link #USER_ID_BUCKETS} (an existing table keeps its own)
 * @param targetFileSizeBytes see {@link #TARGET_FILE_SIZE}: the size writers and compaction aim at
 * @param distribution see {@link #DISTRIBUTION}
 * @param writeParallelism see {@link #WRITE_PARALLELISM}
 * @param uidSuffix the stable suffix of every sink operator's uid (writer, committer, maintenance):
 *     changing it orphans the sink's state in existing savepoints
 * @param maintenance Tally's in-job compaction and snapshot expiry
 * @param writer the name of the job that writes the table (its {@code job.name}), recorded in the
 *     table as its owner ({@link TableOwnership})
 * @param takeOver see {@link #TAKE_OVER}
 */
public record IcebergSinkConfig(
    CatalogConfig catalog,
    StorageConfig storage,
    String namespace,
    String table,
    int userIdBuckets,
    long targetFileSizeBytes,
    WriteDistribution distribution,
    int writeParallelism,
    String uidSuffix,
    MaintenanceConfig maintenance,
    String writer,
    boolean takeOver) {

  /** The output table's namespace. */
  public static final ConfigKey<String> NAMESPACE =
      ConfigKey.string("iceberg.namespace")
          .defaultValue("analytics")
          .required()
          .check(
              namespace -> Arrays.stream(namespace.split("\\.", -1)).noneMatch(String::isBlank),
              namespace -> "must have no empty level: " + namespace)
          .description("Namespace of the output table.");

  /** The output table's name. */
  public static final ConfigKey<String> TABLE =
      ConfigKey.string("iceberg.table")
          .defaultValue("user_hourly_spending")
          .required()
          .check(table -> !table.contains("."), table -> "must have no dots: " + table)
          .description("Output table name.");

  /** The bucket count of {@code user_id} in a new table's partition spec. */
  public static final ConfigKey<Integer> USER_ID_BUCKETS =
      ConfigKey.integer("iceberg.user-id-buckets")
          .defaultValue(16)
          .between(1, 65_536)
          .description("N of `bucket(N, user_id)` in a new table's partition spec.");

  /** The target file size of a new table; 128 MiB is ample for an hourly aggregate. */
  public static final ConfigKey<Long> TARGET_FILE_SIZE =
      ConfigKey.bytes("iceberg.target-file-size")
          .defaultValue(128L * 1024 * 1024)
          .atLeast(1024L * 1024)
          .description("`write.target-file-size-bytes` of a new table.");

  /** How rows are shuffled to the writers. */
  public static final ConfigKey<WriteDistribution> DISTRIBUTION =
      ConfigKey.enumeration("iceberg.distribution", WriteDistribution.class)
          .defaultValue(WriteDistribution.HASH)
          .required()
          .description(
              "Row distribution to writers: none, hash, range. `hash`: each partition (`day`,"
                  + " `bucket(user_id)`) has one writer, so a checkpoint writes one file per live"
                  + " partition; Tally keys the writers by the partition's values (the writers"
                  + " and Iceberg's committer behind Tally's own shuffle), not by Iceberg's formatted"
                  + " partition path, which cost about a quarter of the job's CPU, and gives each"
                  + " writer an equal share of the buckets (a bucket's partitions of every day on"
                  + " one writer), so that no writer gets most of the rows. `none` and"
                  + " `range`: Iceberg's own shuffle by the identifier fields, every writer writing"
                  + " every live partition.");

  /** The number of writers. */
  public static final ConfigKey<Integer> WRITE_PARALLELISM =
      ConfigKey.integer("iceberg.write-parallelism")
          .defaultValue(0)
          .between(0, 32_768)
          .description("Writer parallelism; 0 for the parallelism of the incoming stream.");

  /**
   * Whether this job may take the table over from the job that owns it. For one start, after the
   * owner is stopped for good: Tally cannot tell from the table whether its owner still runs.
   */
  public static final ConfigKey<Boolean> TAKE_OVER =
      ConfigKey.bool("iceberg.take-over")
          .defaultValue(false)
          .description(
              "Take the table over from the job that owns it (its table property `tally.writer`"
                  + " names another `job.name`), instead of refusing to start. Only once that job"
                  + " is stopped for good; then unset it.");

  /** The writer of a table built in code: a job of the default name. */
  static final String DEFAULT_WRITER = "tally";

  /**
   * Default uid suffix of the sink's operators; not a key, since changing it orphans the sink's
   * state.
   */
  public static final String DEFAULT_UID_SUFFIX = "tally-iceberg-sink";

  public IcebergSinkConfig {
    List<String> problems = new ArrayList<>();
    if (catalog == null) {
      problems.add("catalog: must be set");
    } else {
      problems.addAll(catalog.problems());
    }
    if (storage == null) {
      problems.add("storage: must be set");
    } else {
      problems.addAll(storage.problems());
    }
    if (catalog != null
        && catalog.type() == CatalogType.HADOOP
        && storage != null
        && storage.type() == StorageConfig.Type.S3) {
      problems.add(
          StorageConfig.TYPE
              + ", "
              + CatalogConfig.TYPE
              + ": s3 storage needs a rest or jdbc catalog: the Hadoop catalog keeps its metadata"
              + " on the local filesystem");
    }
    NAMESPACE.check(namespace, problems);
    TABLE.check(table, problems);
    USER_ID_BUCKETS.check(userIdBuckets, problems);
    TARGET_FILE_SIZE.check(targetFileSizeBytes, problems);
    DISTRIBUTION.check(distribution, problems);
    WRITE_PARALLELISM.check(writeParallelism, problems);
    if (uidSuffix == null || uidSuffix.isBlank()) {
      problems.add("uidSuffix: must be set");
    }
    if (maintenance == null) {
      problems.add("maintenance: must be set");
    } else {
      problems.addAll(maintenance.problems());
    }
    if (writer == null || writer.isBlank()) {
      problems.add("writer: must be set");
    }
    InvalidConfigException.throwIfAny("Iceberg sink config", problems);
  }

  /**
   * Reads the sink's keys, catalog, storage and maintenance included; {@code null} when they have
   * problems, which {@code r} records.
   *
   * @param jobName the job's name: the table's writer
   */
  public static IcebergSinkConfig read(ConfigReader r, String jobName) {
    CatalogConfig catalog = CatalogConfig.read(r);
    StorageConfig storage = StorageConfig.read(r);
    MaintenanceConfig maintenance = MaintenanceConfig.read(r);
    String namespace = r.get(NAMESPACE);
    String table = r.get(TABLE);
    int buckets = r.get(USER_ID_BUCKETS);
    long targetFileSize = r.get(TARGET_FILE_SIZE);
    WriteDistribution distribution = r.get(DISTRIBUTION);
    int writeParallelism = r.get(WRITE_PARALLELISM);
    boolean takeOver = r.get(TAKE_OVER);
    return r.build(
        "iceberg.*",
        () ->
            new IcebergSinkConfig(
                catalog,
                storage,
                namespace,
                table,
                buckets,
                targetFileSize,
                distribution,
                writeParallelism,
                DEFAULT_UID_SUFFIX,
                maintenance,
                jobName,
                takeOver));
  }

  /**
   * A builder with every key's declared default: the embedded Hadoop catalog (whose warehouse must
   * still be set), local storage and maintenance on.
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * This sink's catalog, storage and writer for another table of the job, with its own uid suffix
   * (e.g. the anomaly table).
   */
  public IcebergSinkConfig forTable(String otherNamespace, String otherTable, String otherUid) {
    return new IcebergSinkConfig(
        catalog,
        storage,
        otherNamespace,
        otherTable,
        userIdBuckets,
        targetFileSizeBytes,
        distribution,
        writeParallelism,
        otherUid,
        maintenance,
        writer,
        takeOver);
  }

  /** The table's identifier in its catalog. */
  public TableIdentifier tableIdentifier() {
    return TableIdentifier.of(Namespace.of(namespace.split("\\.")), table);
  }

  /**
   * Builds {@link IcebergSinkConfig} in code; setters reject {@code null}, {@link #build()} checks.
   */
  public static final class Builder {
    private CatalogConfig catalog = CatalogConfig.builder().build();
    private StorageConfig storage = StorageConfig.local();
    private String namespace = NAMESPACE.defaultValue();
    private String table = TABLE.defaultValue();
    private int userIdBuckets = USER_ID_BUCKETS.defaultValue();
    private long targetFileSizeBytes = TARGET_FILE_SIZE.defaultValue();
    private WriteDistribution distribution = DISTRIBUTION.defaultValue();
    private int writeParallelism = WRITE_PARALLELISM.defaultValue();
    private String uidSuffix = DEFAULT_UID_SUFFIX;
    private MaintenanceConfig maintenance = MaintenanceConfig.builder().build();
    private String writer = DEFAULT_WRITER;
    private boolean takeOver = TAKE_OVER.defaultValue();

    private Builder() {}

    /** See {@link IcebergSinkConfig#catalog()}. */
    public Builder catalog(CatalogConfig value) {
      this.catalog = Objects.requireNonNull(value, "catalog");
      return this;
    }

    /** See {@link IcebergSinkConfig#storage()}. */
    public Builder storage(StorageConfig value) {
      this.storage = Objects.requireNonNull(value, "storage");
      return this;
    }

    /** See {@link IcebergSinkConfig#namespace()}. */
    public Builder namespace(String value) {
      this.namespace = Objects.requireNonNull(value, "namespace");
      return this;
    }

    /** See {@link IcebergSinkConfig#table()}. */
    public Builder table(String value) {
      this.table = Objects.requireNonNull(value, "table");
      return this;
    }

    /** See {@link IcebergSinkConfig#userIdBuckets()}. */
    public Builder userIdBuckets(int value) {
      this.userIdBuckets = value;
      return this;
    }

    /** See {@link IcebergSinkConfig#targetFileSizeBytes()}. */
    public Builder targetFileSizeBytes(long value) {
      this.targetFileSizeBytes = value;
      return this;
    }

    /** See {@link IcebergSinkConfig#distribution()}. */
    public Builder distribution(WriteDistribution value) {
      this.distribution = Objects.requireNonNull(value, "distribution");
      return this;
    }

    /** See {@link IcebergSinkConfig#writeParallelism()}. */
    public Builder writeParallelism(int value) {
      this.writeParallelism = value;
      return this;
    }

    /** See {@link IcebergSinkConfig#uidSuffix()}. */
    public Builder uidSuffix(String value) {
      this.uidSuffix = Objects.requireNonNull(value, "uidSuffix");
      return this;
    }

    /** See {@link IcebergSinkConfig#maintenance()}. */
    public Builder maintenance(MaintenanceConfig value) {
      this.maintenance = Objects.requireNonNull(value, "maintenance");
      return this;
    }

    /** See {@link IcebergSinkConfig#writer()}. */
    public Builder writer(String value) {
      this.writer = Objects.requireNonNull(value, "writer");
      return this;
    }

    /** See {@link IcebergSinkConfig#TAKE_OVER}. */
    public Builder takeOver(boolean value) {
      this.takeOver = value;
      return this;
    }

    /**
     * @throws InvalidConfigException naming every problem found, each with its key
     */
    public IcebergSinkConfig build() {
      return new IcebergSinkConfig(
          catalog,
          storage,
          namespace,
          table,
          userIdBuckets,
          targetFileSizeBytes,
          distribution,
          writeParallelism,
          uidSuffix,
          maintenance,
          writer,
          takeOver);
    }
  }
}
