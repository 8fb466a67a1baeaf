-- Tally's anomaly rule (docs/behaviour.md "Anomalies") as a user would write it in Flink SQL, on the same Kafka
-- source as same-semantics-pipeline.sql: for every transaction with a positive amount, the count, sum and sum of
-- squares of its (user, currency)'s positive amounts in an OVER window of the 7 days up to it, itself taken out
-- again, and a row in analytics.spending_anomalies_sql when at least 20 are there and the amount is more than
-- 4 population standard deviations above their mean.
--   * keep-first dedupe by (user_id, transaction_id) as in same-semantics-pipeline.sql, after dropping records
--     with a missing field, so a bad record never hides a good one of its id;
--   * one addition to the source: 'json.ignore-parse-errors', so a record that is not JSON is skipped instead of
--     failing the job on it forever.
-- Where this differs from the contract (docs/sql.md "The anomaly rule in Flink SQL"): the window is the 7 × 24 h
-- up to the row itself, not the 168 whole hours before its hour, so it holds the row's own hour (and any other
-- row of the same millisecond) and misses the start of the first hour; BIGINT sums and DOUBLE mean and variance
-- instead of exact integers; a row is judged when the watermark reaches the row, not its hour.
-- Environment: as seed-pipeline.sql.

SET 'table.exec.state.ttl' = '24 h';

CREATE TABLE kafka_transactions_source (
  transaction_id STRING,
  user_id STRING,
  amount_cents BIGINT,
  currency STRING,
  event_timestamp TIMESTAMP(3),
  proc_time AS PROCTIME(),
  WATERMARK FOR event_timestamp AS event_timestamp - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'financial-transactions',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP_SERVERS:-kafka:9092}',
  'format' = 'json',
  'json.ignore-parse-errors' = 'true',
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

-- The columns of Tally's analytics.spending_anomalies; Flink DDL has no day() partition transform.
CREATE TABLE IF NOT EXISTS iceberg_catalog.analytics.spending_anomalies_sql (
  transaction_id STRING,
  user_id STRING,
  currency STRING,
  event_timestamp TIMESTAMP(3),
  amount_cents BIGINT,
  baseline_count BIGINT,
  baseline_mean_cents DOUBLE,
  baseline_stddev_cents DOUBLE,
  score DOUBLE,
  PRIMARY KEY (user_id, transaction_id) NOT ENFORCED
) WITH (
  'write.upsert.enabled' = 'true',
  'write.format.default' = 'parquet'
);

-- With the JSON format's ignore-parse-errors a missing or unreadable field is NULL: such a record counts nowhere.
CREATE VIEW complete AS
SELECT *
FROM kafka_transactions_source
WHERE transaction_id IS NOT NULL
  AND user_id IS NOT NULL
  AND amount_cents IS NOT NULL
  AND currency IS NOT NULL
  AND event_timestamp IS NOT NULL;

-- Keep-first dedupe, as in same-semantics-pipeline.sql: append-only, event-time attribute kept.
CREATE VIEW first_seen AS
SELECT transaction_id, user_id, amount_cents, currency, event_timestamp
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY user_id, transaction_id ORDER BY proc_time ASC) AS row_num
  FROM complete)
WHERE row_num = 1;

-- A RANGE window's upper bound can only be CURRENT ROW, which holds the row itself and every row of the same
-- millisecond: take the row itself out again.
CREATE VIEW baselines AS
SELECT transaction_id, user_id, currency, event_timestamp, amount_cents,
  COUNT(*) OVER w - 1 AS n,
  SUM(amount_cents) OVER w - amount_cents AS s,
  SUM(amount_cents * amount_cents) OVER w - amount_cents * amount_cents AS q
FROM first_seen
WHERE amount_cents > 0
WINDOW w AS (
  PARTITION BY user_id, currency
  ORDER BY event_timestamp
  RANGE BETWEEN INTERVAL '7' DAY PRECEDING AND CURRENT ROW);

-- Population variance from the sums; rounding can make it slightly negative when every amount is equal.
CREATE VIEW moments AS
SELECT transaction_id, user_id, currency, event_timestamp, amount_cents, n,
  CAST(s AS DOUBLE) / n AS mean,
  CAST(q AS DOUBLE) / n - (CAST(s AS DOUBLE) / n) * (CAST(s AS DOUBLE) / n) AS variance
FROM baselines
WHERE n >= 20;

CREATE VIEW judged AS
SELECT transaction_id, user_id, currency, event_timestamp, amount_cents, n, mean,
  CASE WHEN variance > 0 THEN SQRT(variance) ELSE CAST(0 AS DOUBLE) END AS stddev
FROM moments;

INSERT INTO iceberg_catalog.analytics.spending_anomalies_sql
SELECT
  transaction_id,
  user_id,
  currency,
  event_timestamp,
  amount_cents,
  n AS baseline_count,
  mean AS baseline_mean_cents,
  stddev AS baseline_stddev_cents,
  CASE WHEN stddev > 0 THEN (CAST(amount_cents AS DOUBLE) - mean) / stddev END AS score
FROM judged
WHERE CAST(amount_cents AS DOUBLE) > mean + 4 * stddev;
