package dev.tally.adapters.iceberg;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.tally.ports.out.SpendingSink;
import java.util.Objects;

/**
 * Guice: binds the {@link SpendingSink} port to an Iceberg table. Fast and free of I/O, as modules
 * should be: the table is created or checked when the sink is attached to the stream graph.
 */
public final class IcebergSinkModule extends AbstractModule {

  private final IcebergSinkConfig options;

  public IcebergSinkModule(IcebergSinkConfig options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  @Provides
  @Singleton
  SpendingSink spendingSink() {
    return new IcebergSpendingSink(options);
  }
}
