-- The seed's pipeline with Flink's window table-valued functions instead of the legacy GROUP BY TUMBLE(...), which
-- Flink documents as deprecated in favour of TVFs. Same source, catalog and table, the same rows; run it like
-- seed-pipeline.sql (docs/sql.md). Unlike the seed, the table is created only if absent, so this script can follow
-- the seed's on the same catalog. Environment: as seed-pipeline.sql, WINDOW_SIZE and OUT_OF_ORDERNESS included.

CREATE TABLE kafka_transactions_source (
  transaction_id STRING,
  user_id STRING,
  amount_cents BIGINT,
  currency STRING,
  event_timestamp TIMESTAMP(3),
  WATERMARK FOR event_timestamp AS event_timestamp - ${OUT_OF_ORDERNESS:-INTERVAL '5' SECOND}
) WITH (
  'connector' = 'kafka',
  'topic' = 'financial-transactions',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP_SERVERS:-kafka:9092}',
  'format' = 'json',
  'scan.startup.mode' = '${SCAN_STARTUP_MODE:-latest-offset}',
  'scan.bounded.mode' = '${SCAN_BOUNDED_MODE:-unbounded}'
);

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
  user_id STRING,
  window_start TIMESTAMP(3),
  total_spent_cents BIGINT,
  transaction_count BIGINT,
  PRIMARY KEY (user_id, window_start) NOT ENFORCED
) WITH (
  'write.upsert.enabled' = 'true',
  'write.format.default' = 'parquet'
);

-- A window TVF adds window_start, window_end and window_time to every row; grouping by the window's bounds closes
-- each window when the watermark passes its end, exactly as TUMBLE(...) does.
INSERT INTO iceberg_catalog.analytics.user_hourly_spending
SELECT
  user_id,
  window_start,
  SUM(amount_cents) AS total_spent_cents,
  COUNT(*) AS transaction_count
FROM TABLE(
  TUMBLE(TABLE kafka_transactions_source, DESCRIPTOR(event_timestamp), ${WINDOW_SIZE:-INTERVAL '1' HOUR}))
GROUP BY
  user_id,
  window_start,
  window_end;
