package dev.tally.runtime.job;

import dev.tally.runtime.config.JobConfig;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that decides where a Tally command runs: the cluster {@code flink run} submits to,
 * or an embedded MiniCluster sized by {@link JobConfig#LOCAL_MANAGED_MEMORY} for {@code --local}.
 * The Java pipeline and the SQL runner share it, so a local benchmark compares them on equal terms.
 *
 * <p>A cluster's metric reporters are the cluster's own (its Flink configuration and {@code
 * plugins/}); an embedded one gets Flink's Prometheus reporter here, from the class path.
 */
public final class ExecutionEnvironments {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutionEnvironments.class);

  /** The reporter's name in {@code metrics.reporter.<name>.*}. */
  static final String PROMETHEUS_REPORTER = "prom";

  /** From {@code flink-metrics-prometheus}, in flink-lib; named, not linked: Flink loads it. */
  static final String PROMETHEUS_REPORTER_FACTORY =
      "org.apache.flink.metrics.prometheus.PrometheusReporterFactory";

  private ExecutionEnvironments() {}

  /**
   * The environment for {@code flink}.
   *
   * @param local run on an embedded MiniCluster with the Flink web UI on {@code webPort}
   * @param metricsPort the embedded cluster's Prometheus endpoint, 0 for none; ignored unless
   *     {@code local}
   */
  public static StreamExecutionEnvironment create(
      Configuration flink, JobConfig job, boolean local, int webPort, int metricsPort) {
    if (!local) {
      return StreamExecutionEnvironment.getExecutionEnvironment(flink);
    }
    flink.set(RestOptions.PORT, webPort);
    job.applyLocalTo(flink);
    LOG.info("Flink web UI: http://localhost:{}", webPort);
    if (metricsPort > 0) {
      exportToPrometheus(flink, metricsPort);
      LOG.info("Prometheus metrics: http://localhost:{}/metrics", metricsPort);
    }
    return StreamExecutionEnvironment.createLocalEnvironmentWithWebUI(flink);
  }

  /**
   * Flink's Prometheus reporter, as a cluster's {@code config.yaml} would name it; a Flink 2.x
   * reporter is found by its factory, on the class path or in {@code plugins/}.
   */
  static void exportToPrometheus(Configuration flink, int port) {
    String prefix = "metrics.reporter." + PROMETHEUS_REPORTER + ".";
    flink.setString(prefix + "factory.class", PROMETHEUS_REPORTER_FACTORY);
    flink.setString(prefix + "port", Integer.toString(port));
  }
}
