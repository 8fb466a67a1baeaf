package dev.tally.runtime.guice;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.OptionalBinder;
import dev.tally.domain.anomaly.AnomalyRule;
import dev.tally.ports.out.AnomalySink;
import dev.tally.runtime.config.JobConfig;
import dev.tally.runtime.job.FlinkSettings;
import dev.tally.runtime.job.TallyJob;
import dev.tally.runtime.topology.AggregationSettings;
import java.util.Objects;

/**
 * Guice: the job itself, its aggregation settings and its pipeline rules (no Kryo, explicit uids).
 */
public final class JobModule extends AbstractModule {

  private final JobConfig job;
  private final AggregationSettings aggregation;

  public JobModule(JobConfig job, AggregationSettings aggregation) {
    this.job = Objects.requireNonNull(job, "job");
    this.aggregation = Objects.requireNonNull(aggregation, "aggregation");
  }

  @Override
  protected void configure() {
    bind(AggregationSettings.class).toInstance(aggregation);
    Multibinder.newSetBinder(binder(), FlinkSettings.class).addBinding().toInstance(job::applyTo);
    // Empty unless the anomaly feature's module is installed (AnomalyModule).
    OptionalBinder.newOptionalBinder(binder(), AnomalyRule.class);
    Multibinder.newSetBinder(binder(), AnomalySink.class);
    bind(TallyJob.class);
  }
}
