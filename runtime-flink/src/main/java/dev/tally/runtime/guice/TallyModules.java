package dev.tally.runtime.guice;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Module;
import com.google.inject.Stage;
import com.google.inject.TypeLiteral;
import dev.tally.adapters.iceberg.IcebergSinkModule;
import dev.tally.adapters.kafka.KafkaDeadLetterModule;
import dev.tally.adapters.kafka.KafkaSourceModule;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.runtime.job.FlinkSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The one place the injector is created: whole modules picked from validated configuration, one per
 * feature (Kafka source, dead letters, Iceberg sink, state backend, checkpoint policy, restart
 * strategy, job, and anomalies when they are on).
 */
public final class TallyModules {

  private TallyModules() {}

  /** The modules of a job configured by {@code config}. */
  public static List<Module> of(TallyConfig config) {
    List<Module> modules = new ArrayList<>(base(config));
    if (config.anomalies().enabled()) {
      modules.add(
          new AnomalyModule(config.anomalies(), config.iceberg(), config.kafka().deadLetter()));
    }
    return List.copyOf(modules);
  }

  private static List<Module> base(TallyConfig config) {
    return List.of(
        new StrictBindingsModule(),
        new KafkaSourceModule(config.kafka().source()),
        new KafkaDeadLetterModule(config.kafka().deadLetter()),
        new IcebergSinkModule(config.iceberg()),
        new StateBackendModule(config.state()),
        new CheckpointPolicyModule(config.checkpoints()),
        new RestartStrategyModule(config.restart()),
        new JobModule(config.job(), config.aggregation()));
  }

  /** Creates the injector, in production stage so every singleton is built and checked at once. */
  public static Injector injector(TallyConfig config) {
    return Guice.createInjector(Stage.PRODUCTION, of(config));
  }

  /**
   * The modules of a SQL script's job: the same state backend, checkpoint policy and restart
   * strategy as the Java pipeline, and nothing else (the script brings its own sources and sinks).
   */
  public static List<Module> ofSqlJob(TallyConfig config) {
    return List.of(
        new StrictBindingsModule(),
        new StateBackendModule(config.state()),
        new CheckpointPolicyModule(config.checkpoints()),
        new RestartStrategyModule(config.restart()));
  }

  /**
   * The Flink settings of a SQL script's job (see {@link #ofSqlJob}), from an injector created here
   * like the job's.
   */
  public static Set<FlinkSettings> sqlJobSettings(TallyConfig config) {
    return Guice.createInjector(Stage.PRODUCTION, ofSqlJob(config))
        .getInstance(Key.get(new TypeLiteral<Set<FlinkSettings>>() {}));
  }
}
