package dev.tally.runtime.guice;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.Multibinder;
import dev.tally.runtime.config.RestartConfig;
import dev.tally.runtime.job.FlinkSettings;
import java.util.Objects;

/** Guice: contributes the exponential-delay restart strategy to the job's Flink configuration. */
public final class RestartStrategyModule extends AbstractModule {

  private final RestartConfig config;

  public RestartStrategyModule(RestartConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  @Override
  protected void configure() {
    Multibinder.newSetBinder(binder(), FlinkSettings.class)
        .addBinding()
        .toInstance(config::applyTo);
  }
}
