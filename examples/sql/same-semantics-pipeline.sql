-- The seed's pipeline plus what docs/behaviour.md demands that Flink SQL can express, for the bench's
-- "same-semantics" SQL leg (docs/benchmarks.md): the same Kafka source as seed-pipeline.sql, and
--   * rows keyed by (user_id, currency, window): amounts in different currencies are never added together;
--   * keep-first dedupe by (user_id, transaction_id), ROW_NUMBER() over processing time, its state kept
--     [24 h] (table.exec.state.ttl: a processing-time TTL, where Tally's retention is event time);
--   * window TVF aggregation, one row per key and hour, upserted into its own table.
-- What it still does not do: it cannot tell a conflicting duplicate from an exact one (both are dropped, none
-- is sent to a dead-letter topic), nor reject late events, malformed records or overflowing sums.
-- Environment: as seed-pipeline.sql, WINDOW_SIZE and OUT_OF_ORDERNESS included (the window length and the
-- watermark's bound, default one hour and 5 seconds as in the seed).

SET 'table.exec.state.ttl' = '24 h';

CREATE TABLE kafka_transactions_source (
  transaction_id STRING,
  user_id STRING,
  amount_cents BIGINT,
  currency STRING,
  event_timestamp TIMESTAMP(3),
  proc_time AS PROCTIME(),
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

CREATE TABLE IF NOT EXISTS iceberg_catalog.analytics.user_hourly_spending_by_currency (
  user_id STRING,
  currency STRING,
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  total_spent_cents BIGINT,
  transaction_count BIGINT,
  PRIMARY KEY (user_id, currency, window_start) NOT ENFORCED
) WITH (
  'write.upsert.enabled' = 'true',
  'write.format.default' = 'parquet'
);

-- Keep-first dedupe: the first record of each (user_id, transaction_id) by processing time, an append-only stream
-- that keeps the event-time attribute, so the window TVF can follow it.
CREATE VIEW first_seen AS
SELECT transaction_id, user_id, amount_cents, currency, event_timestamp
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY user_id, transaction_id ORDER BY proc_time ASC) AS row_num
  FROM kafka_transactions_source)
WHERE row_num = 1;

INSERT INTO iceberg_catalog.analytics.user_hourly_spending_by_currency
SELECT
  user_id,
  currency,
  window_start,
  window_end,
  SUM(amount_cents) AS total_spent_cents,
  COUNT(*) AS transaction_count
FROM TABLE(TUMBLE(TABLE first_seen, DESCRIPTOR(event_timestamp), ${WINDOW_SIZE:-INTERVAL '1' HOUR}))
GROUP BY user_id, currency, window_start, window_end;
