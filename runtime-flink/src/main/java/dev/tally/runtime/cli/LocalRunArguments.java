package dev.tally.runtime.cli;

import dev.tally.runtime.config.JobConfig;
import dev.tally.runtime.job.ExecutionEnvironments;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Option;

/**
 * {@code --local}, {@code --web-port PORT} and {@code --metrics-port PORT}, the options of the
 * commands that submit a streaming job, as a picocli mixin: they choose between the cluster {@code
 * flink run} submits to and an embedded MiniCluster.
 */
public final class LocalRunArguments {

  @Option(
      names = "--local",
      description =
          "Run on an embedded MiniCluster with the Flink web UI (needs Flink on the class path).")
  private boolean local;

  @Option(
      names = "--web-port",
      paramLabel = "PORT",
      defaultValue = "8081",
      description = "The web UI's port for --local (default: ${DEFAULT-VALUE}).")
  private int webPort;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      defaultValue = "9249",
      description =
          "The port of the Prometheus endpoint (/metrics) for --local, 0 for none (default:"
              + " ${DEFAULT-VALUE}).")
  private int metricsPort;

  /** The environment the job runs in, as {@link ExecutionEnvironments#create} picks it. */
  public StreamExecutionEnvironment environment(Configuration flink, JobConfig job) {
    return ExecutionEnvironments.create(flink, job, local, webPort, metricsPort);
  }
}
