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
 */
public final class ExecutionEnvironments {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutionEnvironments.class);

  private ExecutionEnvironments() {}

  /**
   * The environment for {@code flink}.
   *
   * @param local run on an embedded MiniCluster with the Flink web UI on {@code webPort}
   */
  public static StreamExecutionEnvironment create(
      Configuration flink, JobConfig job, boolean local, int webPort) {
    if (!local) {
      return StreamExecutionEnvironment.getExecutionEnvironment(flink);
    }
    flink.set(RestOptions.PORT, webPort);
    job.applyLocalTo(flink);
    LOG.info("Flink web UI: http://localhost:{}", webPort);
    return StreamExecutionEnvironment.createLocalEnvironmentWithWebUI(flink);
  }
}
