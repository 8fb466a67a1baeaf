package dev.tally.adapters.kafka;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.tally.ports.in.TransactionSource;
import java.util.Objects;

/**
 * Guice: binds the {@link TransactionSource} port to Kafka. Fast and free of I/O, as modules should
 * be.
 */
public final class KafkaSourceModule extends AbstractModule {

  private final KafkaSourceConfig options;

  public KafkaSourceModule(KafkaSourceConfig options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  @Provides
  @Singleton
  TransactionSource transactionSource() {
    return new KafkaTransactionSource(options);
  }
}
