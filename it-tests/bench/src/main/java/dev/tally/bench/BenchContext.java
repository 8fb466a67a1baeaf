package dev.tally.bench;

import dev.tally.stack.LocalStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What every leg of a throughput run shares: the services, the preloaded topic, the parallelism,
 * the workload's expectation, and where the job jar and its Flink libraries are.
 *
 * @param work this run's directory: one subdirectory per leg with its configuration and log
 * @param benchClasses the bench's own classes, for legs whose main class is bench code
 * @param events records preloaded
 * @param expectedAmountSum exact sum of every preloaded amount
 * @param expectedRows distinct (user, currency, window) rows the table must end with
 * @param expectedUserRows distinct (user, window) rows, for a table not keyed by currency (the
 *     seed's SQL)
 * @param jfr whether the job legs record a Java Flight Recording ({@code <leg>/<leg>.jfr})
 */
record BenchContext(
    LocalStack stack,
    Path work,
    Path jobJar,
    Path flinkLib,
    Path benchClasses,
    String topic,
    int partitions,
    int parallelism,
    Duration checkpointInterval,
    long events,
    long expectedAmountSum,
    long expectedRows,
    long expectedUserRows,
    boolean jfr,
    List<String> tallySettings) {

  /** Namespace of the bench's own tables; the seed's SQL writes to its fixed {@code analytics}. */
  static final String NAMESPACE = "bench";

  /** The Java launcher of the JVM running the bench: every leg runs on the same JDK. */
  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
