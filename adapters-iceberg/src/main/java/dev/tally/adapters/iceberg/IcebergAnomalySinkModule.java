package dev.tally.adapters.iceberg;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.Multibinder;
import dev.tally.ports.out.AnomalySink;
import java.util.Objects;

/**
 * Guice: adds the Iceberg anomaly table to the job's {@link AnomalySink}s. Free of I/O: the table
 * is created or checked when the sink is attached.
 */
public final class IcebergAnomalySinkModule extends AbstractModule {

  private final IcebergSinkConfig spending;
  private final String namespace;
  private final String table;

  /**
   * @param spending the spending sink's configuration: catalog, storage and writer
   * @param namespace the anomaly table's namespace
   * @param table the anomaly table's name
   */
  public IcebergAnomalySinkModule(IcebergSinkConfig spending, String namespace, String table) {
    this.spending = Objects.requireNonNull(spending, "spending");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.table = Objects.requireNonNull(table, "table");
  }

  @Override
  protected void configure() {
    Multibinder.newSetBinder(binder(), AnomalySink.class)
        .addBinding()
        .toInstance(new IcebergAnomalySink(spending, namespace, table));
  }
}
