package dev.tally.bench;

import dev.tally.stack.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipFile;

/**
 * The seed's Flink SQL pipeline, as the seed writes it ({@code examples/sql/seed-pipeline.sql}),
 * through the job jar's SQL runner ({@code TallyMain sql}): same JVM set-up, state backend,
 * checkpoint policy and parallelism as {@link TallyLeg} (the same {@code tally.yaml}), bounded by
 * {@code SCAN_BOUNDED_MODE=latest-offset}, measured the same way. The seed's table is its own
 * {@code analytics.user_hourly_spending}, keyed by (user, window) without currency, so its check
 * expects the workload's distinct (user, window) rows.
 *
 * <p>Skipped, with no figure, when the job jar has no SQL runner or the script is missing.
 */
final class SqlLeg implements Leg {

  static final String RUNNER_CLASS = "dev/tally/runtime/sql/SqlCommand.class";

  @Override
  public String name() {
    return "sql";
  }

  @Override
  public String unavailable(BenchContext context) {
    Path script = script();
    if (!Files.isRegularFile(script)) {
      return "not available: no SQL script at " + script;
    }
    try (ZipFile jar = new ZipFile(context.jobJar().toFile())) {
      if (jar.getEntry(RUNNER_CLASS) == null) {
        return "not available: the job jar has no SQL runner";
      }
    } catch (IOException e) {
      return "not available: cannot read the job jar " + context.jobJar() + ": " + e.getMessage();
    }
    return null;
  }

  @Override
  public LegResult run(BenchContext context) throws Exception {
    // The Tally table name in the shared configuration is unused: the script names its own table.
    JobRuns.Finished run =
        JobRuns.runLeg(
            context,
            name(),
            "sql_unused",
            List.of("sql", "--file", script().toString()),
            List.of(),
            environment(context.stack()));
    if (run.exit() != 0) {
      return LegResult.failed(name(), "exit code " + run.exit() + ", see " + run.log());
    }
    return run.result(
        name(),
        context,
        IcebergStats.read(context.stack(), "analytics", "user_hourly_spending"),
        context.expectedUserRows());
  }

  /** The seed script's endpoints and bounded read, from the environment as it expects them. */
  private static Map<String, String> environment(LocalStack stack) {
    Map<String, String> env = new HashMap<>(stack.objectStore().awsClientEnvironment());
    env.put("KAFKA_BOOTSTRAP_SERVERS", stack.kafka().bootstrapServers());
    env.put("ICEBERG_REST_URI", stack.catalog().uri());
    env.put("ICEBERG_WAREHOUSE", stack.catalog().warehouse());
    env.put("S3_ENDPOINT", stack.objectStore().endpoint());
    env.put("S3_PATH_STYLE_ACCESS", "true");
    env.put("SCAN_STARTUP_MODE", "earliest-offset");
    env.put("SCAN_BOUNDED_MODE", "latest-offset");
    return env;
  }

  private static Path script() {
    return Path.of(System.getProperty("tally.sql.script", "examples/sql/seed-pipeline.sql"))
        .toAbsolutePath()
        .normalize();
  }
}
