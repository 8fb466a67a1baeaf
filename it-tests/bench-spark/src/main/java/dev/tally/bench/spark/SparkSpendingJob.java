package dev.tally.bench.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.to_timestamp;
import static org.apache.spark.sql.functions.window;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The hourly spending aggregation in Spark Structured Streaming, for the bench's Spark leg
 * (docs/benchmarks.md "Compare"): Kafka source, JSON decode, event-time watermark, {@code
 * dropDuplicatesWithinWatermark} on (user, transaction id), tumbling windows per user, currency and
 * window, appended to an Iceberg table through Iceberg's Spark runtime once the watermark closes a
 * window.
 *
 * <p>Append mode, not a {@code foreachBatch} MERGE in update mode: a row is written once, when its
 * window is final, which is what the freshness figure measures for every leg (window end to final
 * row readable); update mode would rewrite open windows every micro-batch and make a partial row
 * readable early.
 *
 * <p>It prints one line per query event to standard output, which the bench reads: {@code
 * tally-spark started <epoch ms>} when the query starts and {@code tally-spark progress <batch>
 * <input rows> <epoch ms>} after every micro-batch.
 */
@Command(
    name = "spark-spending-job",
    mixinStandardHelpOptions = true,
    description = "Hourly spending per user and currency, Kafka to Iceberg, in Spark.")
public final class SparkSpendingJob implements Callable<Integer> {

  /** The catalog's name inside the Spark session. */
  static final String CATALOG = "tally";

  @Option(names = "--bootstrap-servers", required = true, description = "Kafka bootstrap servers.")
  String bootstrapServers;

  @Option(
      names = "--topics",
      required = true,
      description = "Kafka topics to read, comma-separated, from the earliest offsets.")
  String topics;

  @Option(
      names = "--catalog-property",
      paramLabel = "KEY=VALUE",
      description = "A property of the Iceberg REST catalog (uri, warehouse, io-impl, s3.*).")
  Map<String, String> catalogProperties = new LinkedHashMap<>();

  @Option(names = "--namespace", defaultValue = "bench", description = "The table's namespace.")
  String namespace;

  @Option(names = "--table", defaultValue = "spark_spending", description = "The output table.")
  String table;

  @Option(
      names = "--checkpoint-location",
      required = true,
      description = "The query's checkpoint directory (offsets, commits, state).")
  String checkpointLocation;

  @Option(
      names = "--cores",
      defaultValue = "2",
      description = "Threads of the local master, local[N] (default: ${DEFAULT-VALUE}).")
  int cores;

  @Option(
      names = "--shuffle-partitions",
      defaultValue = "4",
      description =
          "spark.sql.shuffle.partitions: state store instances (default: ${DEFAULT-VALUE}).")
  int shufflePartitions;

  @Option(
      names = "--window",
      defaultValue = "1 hour",
      description = "Tumbling window length, in Spark's interval form (default: ${DEFAULT-VALUE}).")
  String windowLength;

  @Option(
      names = "--watermark",
      defaultValue = "5 seconds",
      description = "Event-time watermark delay (default: ${DEFAULT-VALUE}).")
  String watermark;

  @Option(
      names = "--trigger",
      defaultValue = "10 seconds",
      description = "Micro-batch interval of a live query (default: ${DEFAULT-VALUE}).")
  String trigger;

  @Option(
      names = "--max-offsets-per-trigger",
      description =
          "Kafka records per micro-batch at most (maxOffsetsPerTrigger); none by default. A live"
              + " query restarted on a backlog then catches up in bounded batches.")
  Long maxOffsetsPerTrigger;

  @Option(
      names = "--bounded",
      description =
          "Read what the topics hold at the start (Trigger.AvailableNow), then stop. A window is"
              + " written only once the watermark passes its end: the caller ends its data with a"
              + " record late enough in event time to close every window.")
  boolean bounded;

  /** Runs the query; see {@code --help}. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new SparkSpendingJob()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[" + cores + "]")
            .appName("tally-bench-spark")
            .config("spark.ui.enabled", "false")
            // Loopback only: local mode needs no other interface.
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.shuffle.partitions", Integer.toString(shufflePartitions))
            // The same kind of state store as the Flink legs: RocksDB, off the heap.
            .config(
                "spark.sql.streaming.stateStore.providerClass",
                "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
            .config("spark.sql.catalog." + CATALOG, "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog." + CATALOG + ".type", "rest");
    catalogProperties.forEach(
        (k, v) -> builder.config("spark.sql.catalog." + CATALOG + "." + k, v));
    SparkSession spark = builder.getOrCreate();
    spark.streams().addListener(new Announcer());
    String qualified = CATALOG + "." + namespace + "." + table;
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + CATALOG + "." + namespace);
    spark.sql(
        "CREATE TABLE IF NOT EXISTS "
            + qualified
            + " (user_id STRING, currency STRING, window_start TIMESTAMP, window_end TIMESTAMP,"
            + " total_spent_cents BIGINT, transaction_count BIGINT) USING iceberg");

    StreamingQuery query =
        spending(spark)
            .writeStream()
            .format("iceberg")
            .outputMode("append")
            .trigger(bounded ? Trigger.AvailableNow() : Trigger.ProcessingTime(trigger))
            .option("checkpointLocation", checkpointLocation)
            .option("fanout-enabled", "true")
            .toTable(qualified);
    query.awaitTermination();
    spark.stop();
    return 0;
  }

  /** Kafka records to final (user, currency, window) rows. */
  Dataset<Row> spending(SparkSession spark) {
    StructType transaction =
        new StructType()
            .add("transaction_id", DataTypes.StringType)
            .add("user_id", DataTypes.StringType)
            .add("amount_cents", DataTypes.LongType)
            .add("currency", DataTypes.StringType)
            .add("event_timestamp", DataTypes.StringType);
    DataStreamReader reader =
        spark
            .readStream()
            .format("kafka")
            .option("kafka.bootstrap.servers", bootstrapServers)
            .option("subscribe", topics)
            .option("startingOffsets", "earliest")
            .option("failOnDataLoss", "false");
    if (maxOffsetsPerTrigger != null) {
      reader = reader.option("maxOffsetsPerTrigger", maxOffsetsPerTrigger);
    }
    Dataset<Row> records = reader.load();
    return records
        .select(from_json(col("value").cast("string"), transaction).as("t"))
        .select(
            col("t.transaction_id").as("transaction_id"),
            col("t.user_id").as("user_id"),
            col("t.amount_cents").as("amount_cents"),
            col("t.currency").as("currency"),
            to_timestamp(col("t.event_timestamp"), "yyyy-MM-dd HH:mm:ss.SSS").as("event_time"))
        // A record that is not JSON, or lacks a field, is dropped here: Spark has no dead letters.
        .where(
            col("transaction_id")
                .isNotNull()
                .and(col("user_id").isNotNull())
                .and(col("amount_cents").isNotNull())
                .and(col("currency").isNotNull())
                .and(col("event_time").isNotNull()))
        .withWatermark("event_time", watermark)
        .dropDuplicatesWithinWatermark("user_id", "transaction_id")
        .groupBy(col("user_id"), col("currency"), window(col("event_time"), windowLength))
        .agg(sum("amount_cents").as("total_spent_cents"), count(lit(1)).as("transaction_count"))
        .select(
            col("user_id"),
            col("currency"),
            col("window.start").as("window_start"),
            col("window.end").as("window_end"),
            col("total_spent_cents"),
            col("transaction_count"));
  }

  /** The query's start and each micro-batch, on standard output, for the bench. */
  private static final class Announcer extends StreamingQueryListener {
    private static final long serialVersionUID = 1L;

    @Override
    public void onQueryStarted(QueryStartedEvent event) {
      say("started " + System.currentTimeMillis());
    }

    @Override
    public void onQueryProgress(QueryProgressEvent event) {
      say(
          "progress "
              + event.progress().batchId()
              + " "
              + event.progress().numInputRows()
              + " "
              + System.currentTimeMillis());
    }

    @Override
    public void onQueryIdle(QueryIdleEvent event) {}

    @Override
    public void onQueryTerminated(QueryTerminatedEvent event) {
      say("terminated " + System.currentTimeMillis());
    }

    private static void say(String line) {
      System.out.println("tally-spark " + line);
      System.out.flush();
    }
  }
}
