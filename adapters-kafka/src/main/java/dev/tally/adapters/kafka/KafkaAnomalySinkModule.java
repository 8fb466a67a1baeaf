package dev.tally.adapters.kafka;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.Multibinder;
import dev.tally.ports.out.AnomalySink;
import java.util.Objects;

/** Guice: adds the Kafka anomaly topic to the job's {@link AnomalySink}s. */
public final class KafkaAnomalySinkModule extends AbstractModule {

  private final KafkaAnomalySinkConfig options;

  public KafkaAnomalySinkModule(KafkaAnomalySinkConfig options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  @Override
  protected void configure() {
    Multibinder.newSetBinder(binder(), AnomalySink.class)
        .addBinding()
        .toInstance(new KafkaAnomalySink(options));
  }
}
