package dev.tally.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The aggregation in Spark Structured Streaming (it-tests/bench-spark's {@code SparkSpendingJob}),
 * bounded: {@code Trigger.AvailableNow} reads what the topic holds, local mode with as many threads
 * as the parallelism, a 5 s watermark, RocksDB state, appending final windows to an Iceberg table.
 *
 * <p>A stream has no end of input in Spark, so a window is written only once the watermark passes
 * its end. The leg ends the data as Flink's bounded source does with its final watermark: one
 * record, in a topic of its own that the job also reads, a day later in event time than the run's
 * data. It lifts the watermark past every window of the data, and its own window never closes, so
 * it adds no row. Processing time runs from the query's start (its listener's line in the log) to
 * the exit of the JVM: Spark's session start is out, as the Flink legs' cluster start is.
 */
final class SparkLeg implements Leg {

  static final String TABLE = "spark_spending";
  static final String END_TOPIC = "spark-end-of-input";

  private static final DateTimeFormatter SQL_TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

  @Override
  public String name() {
    return "spark";
  }

  @Override
  public String unavailable(BenchContext context) {
    return SparkJob.unavailable();
  }

  @Override
  public LegResult run(BenchContext context) throws Exception {
    Path dir = Files.createDirectories(context.work().resolve(name()));
    context.stack().kafka().createTopic(END_TOPIC, 1, Map.of("retention.ms", "-1"));
    endOfInput(context.stack().kafka().bootstrapServers());
    Path log = dir.resolve("job.log");
    ProcessBuilder job =
        SparkJob.process(
            context.stack(),
            dir,
            context.parallelism(),
            List.of(
                "--topics",
                context.topic() + "," + END_TOPIC,
                "--table",
                TABLE,
                "--watermark",
                "5 seconds",
                "--window",
                "1 hour",
                "--bounded"),
            log);
    MeasuredProcess process = MeasuredProcess.start(job);
    int exit = process.await(Duration.ofHours(2));
    if (exit != 0) {
      return LegResult.failed(name(), "exit code " + exit + ", see " + log);
    }
    double processing =
        SparkJob.started(log).isPresent()
            ? (process.exitedEpochMillis() - SparkJob.started(log).getAsLong()) / 1e3
            : process.wall().toMillis() / 1e3;
    return new JobRuns.Finished(process, exit, processing, log)
        .result(name(), context, IcebergStats.read(context.stack(), TABLE), context.expectedRows());
  }

  /** The end-of-input record: valid, of a user of its own, a day after now in event time. */
  private static void endOfInput(String bootstrap) {
    String eventTime = SQL_TIMESTAMP.format(Instant.now().plus(Duration.ofDays(1)));
    String json =
        "{\"transaction_id\":\"end-of-input\",\"user_id\":\"end-of-input\",\"amount_cents\":0,"
            + "\"currency\":\"EUR\",\"event_timestamp\":\""
            + eventTime
            + "\"}";
    try (KafkaProducer<byte[], byte[]> producer = Preloader.producer(bootstrap, 0)) {
      producer.send(
          new ProducerRecord<>(
              END_TOPIC,
              "end-of-input".getBytes(StandardCharsets.UTF_8),
              json.getBytes(StandardCharsets.UTF_8)));
      producer.flush();
    }
  }
}
