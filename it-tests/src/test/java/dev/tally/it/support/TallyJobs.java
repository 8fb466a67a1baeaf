package dev.tally.it.support;

import dev.tally.runtime.TallyMain;
import dev.tally.runtime.config.ConfigSource;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.runtime.guice.TallyModules;
import dev.tally.runtime.job.TallyJob;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** Tally's whole job, started in the test JVM's cluster as {@code TallyMain} starts it. */
public final class TallyJobs {

  private TallyJobs() {}

  /**
   * Reads and checks the configuration file, sizes the dead-letter path for the source topics (as
   * the start does, which creates the dead-letter topic and, with anomalies on, the anomaly topic
   * when missing: {@link TallyMain#prepareKafkaSinks}), builds the job from its Guice modules and
   * submits it to the current execution environment (a MiniCluster of the test).
   */
  public static JobClient submit(Path config) throws Exception {
    TallyConfig read = TallyConfig.read(ConfigSource.load(config, List.of(), System::getenv));
    TallyConfig tally = TallyMain.prepareKafkaSinks(read);
    TallyJob job = TallyModules.injector(tally).getInstance(TallyJob.class);
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(job.configuration());
    job.attachTo(env);
    return env.executeAsync(tally.job().name());
  }
}
