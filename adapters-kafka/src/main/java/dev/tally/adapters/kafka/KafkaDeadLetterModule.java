package dev.tally.adapters.kafka;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.tally.ports.out.RejectedRecordSink;
import java.util.Objects;

/** Guice: binds the {@link RejectedRecordSink} port to an exactly-once Kafka dead-letter topic. */
public final class KafkaDeadLetterModule extends AbstractModule {

  private final DeadLetterConfig options;

  public KafkaDeadLetterModule(DeadLetterConfig options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  @Provides
  @Singleton
  RejectedRecordSink rejectedRecordSink() {
    return new KafkaDeadLetterSink(options);
  }
}
