package dev.tally.runtime.job;

import org.apache.flink.configuration.Configuration;

/**
 * A feature's contribution to the job's Flink configuration (state backend, checkpoint policy,
 * restarts, …).
 */
@FunctionalInterface
public interface FlinkSettings {

  /** Writes this feature's options into {@code flink}. */
  void applyTo(Configuration flink);
}
