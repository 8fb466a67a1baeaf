-- Tally's output table in Flink SQL: the columns, types, key and properties Tally's job creates the table with
-- (docs/behaviour.md "Output table"; adapters-iceberg SpendingTable). Check it without changing anything:
--
--   TallyMain sql --dry-run --file examples/sql/tally-table.sql --config tally.yaml
--
-- Differences from the seed's table, and why (docs/sql.md):
--   * currency is part of the key: amounts in different currencies are never added together;
--   * window_start and window_end are TIMESTAMP_LTZ (Iceberg timestamptz): a window is a UTC instant range, and the
--     day(window_start) partition of a row never depends on a writer's or reader's time zone;
--   * every column is NOT NULL, and the format is explicitly v2 (upserts need row-level deletes);
--   * flink.max-continuous-empty-commits is 1: every checkpoint commits, also one without files, so that a restore
--     of an older state is seen (docs/behaviour.md "Upgrades and restores"). Tally's job sets it at start;
--   * write.metadata.delete-after-commit.enabled is true: with a commit per checkpoint, the metadata file each commit
--     writes would otherwise stay on the object store for good.
--
-- Partitioning: Tally partitions by day(window_start) and bucket(16, user_id), so that hash distribution is not capped
-- at one writer per live day. Flink's DDL can only declare identity partitions, so Tally's job creates the table
-- itself and refuses one without that spec; run this script against a catalog where Tally's table exists (IF NOT
-- EXISTS leaves it alone), or create the table with an engine whose DDL has partition transforms, e.g. Spark SQL:
--
--   CREATE TABLE analytics.user_hourly_spending (
--     user_id STRING NOT NULL, currency STRING NOT NULL,
--     window_start TIMESTAMP NOT NULL, window_end TIMESTAMP NOT NULL,
--     total_spent_cents BIGINT NOT NULL, transaction_count BIGINT NOT NULL)
--   USING iceberg
--   PARTITIONED BY (days(window_start), bucket(16, user_id))
--   TBLPROPERTIES ('format-version' = '2', 'write.upsert.enabled' = 'true', 'write.format.default' = 'parquet',
--                  'write.parquet.compression-codec' = 'zstd', 'write.target-file-size-bytes' = '134217728',
--                  'flink.max-continuous-empty-commits' = '1', 'write.metadata.delete-after-commit.enabled' = 'true');
--   ALTER TABLE analytics.user_hourly_spending SET IDENTIFIER FIELDS user_id, currency, window_start;

CREATE CATALOG iceberg_catalog WITH (
  'type' = 'iceberg',
  'catalog-type' = 'rest',
  'uri' = '${ICEBERG_REST_URI}',
  'warehouse' = '${ICEBERG_WAREHOUSE:-s3://production-lakehouse/warehouse}',
  's3.endpoint' = '${S3_ENDPOINT}',
  's3.path-style-access' = '${S3_PATH_STYLE_ACCESS:-false}'
);

CREATE DATABASE IF NOT EXISTS iceberg_catalog.analytics;

CREATE TABLE IF NOT EXISTS iceberg_catalog.analytics.user_hourly_spending (
  user_id STRING NOT NULL,
  currency STRING NOT NULL,
  window_start TIMESTAMP_LTZ(6) NOT NULL,
  window_end TIMESTAMP_LTZ(6) NOT NULL,
  total_spent_cents BIGINT NOT NULL,
  transaction_count BIGINT NOT NULL,
  PRIMARY KEY (user_id, currency, window_start) NOT ENFORCED
) WITH (
  'format-version' = '2',
  'write.upsert.enabled' = 'true',
  'write.format.default' = 'parquet',
  'write.parquet.compression-codec' = 'zstd',
  'write.target-file-size-bytes' = '134217728',
  'flink.max-continuous-empty-commits' = '1',
  'write.metadata.delete-after-commit.enabled' = 'true'
);
