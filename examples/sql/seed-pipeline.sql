-- The seed's Flink SQL pipeline, as the seed writes it: Kafka -> hourly spending per user -> Iceberg upsert table.
-- Run it with Tally's state backend and checkpoint policy (docs/sql.md):
--
--   TallyMain sql --file examples/sql/seed-pipeline.sql --config tally.yaml
--
-- Only endpoints and the two durations are parameterized (${VAR} from the environment, ${VAR:-default} where the
-- seed's value is a sensible default). Five additions, each marked "not in the seed":
--   * scan.startup.mode keeps the seed's latest-offset by default; SCAN_STARTUP_MODE=earliest-offset replays the topic;
--   * scan.bounded.mode (default unbounded, the seed's behaviour); SCAN_BOUNDED_MODE=latest-offset makes the job read up
--     to the offsets current at its start and finish: every window fires and the last checkpoint commits (benchmarks,
--     backfills, tests);
--   * the S3 endpoint and path-style access, which an S3-compatible store needs (on AWS S3, set S3_ENDPOINT to the
--     region's endpoint, e.g. https://s3.eu-west-1.amazonaws.com);
--   * CREATE DATABASE IF NOT EXISTS: a REST catalog does not create the namespace on its own;
--   * the window length, WINDOW_SIZE (default the seed's INTERVAL '1' HOUR), and the watermark's bound on
--     out-of-orderness, OUT_OF_ORDERNESS (default the seed's INTERVAL '5' SECOND), each a Flink SQL interval literal,
--     e.g. WINDOW_SIZE="INTERVAL '10' SECOND": short windows for a live freshness run (docs/benchmarks.md).
-- Environment: KAFKA_BOOTSTRAP_SERVERS, ICEBERG_REST_URI, ICEBERG_WAREHOUSE, S3_ENDPOINT, S3_PATH_STYLE_ACCESS,
-- SCAN_STARTUP_MODE, SCAN_BOUNDED_MODE, WINDOW_SIZE, OUT_OF_ORDERNESS; S3 keys and region from the AWS SDK's default
-- chain (AWS_ACCESS_KEY_ID, ...).

-- Flink Streaming SQL: Continuous ingestion into Iceberg lakehouse
-- 1. Define Kafka Source Table
CREATE TABLE kafka_transactions_source (
  transaction_id STRING,
  user_id STRING,
  amount_cents BIGINT,
  currency STRING,
  event_timestamp TIMESTAMP(3),
  -- not in the seed: the bound from the environment
  WATERMARK FOR event_timestamp AS event_timestamp - ${OUT_OF_ORDERNESS:-INTERVAL '5' SECOND}
) WITH (
  'connector' = 'kafka',
  'topic' = 'financial-transactions',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP_SERVERS:-kafka:9092}',
  'format' = 'json',
  'scan.startup.mode' = '${SCAN_STARTUP_MODE:-latest-offset}',
  -- not in the seed: bounded reads on demand
  'scan.bounded.mode' = '${SCAN_BOUNDED_MODE:-unbounded}'
);

-- 2. Define Apache Iceberg Sink Table
CREATE CATALOG iceberg_catalog WITH (
  'type' = 'iceberg',
  'catalog-type' = 'rest',
  'uri' = '${ICEBERG_REST_URI}',
  'warehouse' = '${ICEBERG_WAREHOUSE:-s3://production-lakehouse/warehouse}',
  -- not in the seed: where the S3-compatible store is
  's3.endpoint' = '${S3_ENDPOINT}',
  's3.path-style-access' = '${S3_PATH_STYLE_ACCESS:-false}'
);

-- not in the seed: the namespace must exist before a table is created in it
CREATE DATABASE IF NOT EXISTS iceberg_catalog.analytics;

CREATE TABLE iceberg_catalog.analytics.user_hourly_spending (
  user_id STRING,
  window_start TIMESTAMP(3),
  total_spent_cents BIGINT,
  transaction_count BIGINT,
  PRIMARY KEY (user_id, window_start) NOT ENFORCED
) WITH (
  'write.upsert.enabled' = 'true',
  'write.format.default' = 'parquet'
);

-- 3. Execute Continuous Streaming Pipeline
INSERT INTO iceberg_catalog.analytics.user_hourly_spending
SELECT
  user_id,
  -- not in the seed: the window length from the environment
  TUMBLE_START(event_timestamp, ${WINDOW_SIZE:-INTERVAL '1' HOUR}) AS window_start,
  SUM(amount_cents) AS total_spent_cents,
  COUNT(*) AS transaction_count
FROM kafka_transactions_source
GROUP BY
  user_id,
  TUMBLE(event_timestamp, ${WINDOW_SIZE:-INTERVAL '1' HOUR});
