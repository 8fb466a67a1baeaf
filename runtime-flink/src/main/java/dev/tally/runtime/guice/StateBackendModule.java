package dev.tally.runtime.guice;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.Multibinder;
import dev.tally.runtime.config.StateConfig;
import dev.tally.runtime.job.FlinkSettings;
import java.util.Objects;

/**
 * Guice: contributes RocksDB state backend with incremental checkpoints to the job's Flink
 * configuration.
 */
public final class StateBackendModule extends AbstractModule {

  private final StateConfig config;

  public StateBackendModule(StateConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  @Override
  protected void configure() {
    Multibinder.newSetBinder(binder(), FlinkSettings.class)
        .addBinding()
        .toInstance(config::applyTo);
  }
}
