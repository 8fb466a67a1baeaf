package dev.tally.runtime.guice;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.Multibinder;
import dev.tally.runtime.config.CheckpointConfig;
import dev.tally.runtime.job.FlinkSettings;
import java.util.Objects;

/** Guice: contributes the checkpoint policy to the job's Flink configuration. */
public final class CheckpointPolicyModule extends AbstractModule {

  private final CheckpointConfig config;

  public CheckpointPolicyModule(CheckpointConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  @Override
  protected void configure() {
    Multibinder.newSetBinder(binder(), FlinkSettings.class)
        .addBinding()
        .toInstance(config::applyTo);
  }
}
