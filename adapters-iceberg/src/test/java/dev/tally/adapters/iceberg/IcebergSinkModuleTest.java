package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Stage;
import dev.tally.domain.spending.SpendingAggregate;
import dev.tally.domain.spending.SpendingKey;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.domain.window.EventTimeWindow;
import dev.tally.ports.out.SpendingSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IcebergSinkModuleTest {

  private static final String SOURCE_UID = "test-source";

  @TempDir Path temp;

  private static Injector injector(IcebergSinkConfig options) {
    return Guice.createInjector(
        Stage.PRODUCTION,
        new AbstractModule() {
          @Override
          protected void configure() {
            binder().requireExplicitBindings();
            binder().disableCircularProxies();
            install(new IcebergSinkModule(options));
          }
        });
  }

  private IcebergSinkConfig options(Path warehouse, MaintenanceConfig maintenance) {
    return IcebergSinkConfig.builder()
        .catalog(CatalogConfig.builder().warehouse(warehouse.toString()).build())
        .maintenance(maintenance)
        .build();
  }

  /**
   * With generic types off, as the job runs: a silent fall-back to Kryo anywhere in the write path
   * or the maintenance is a bug, and building the stream graph creates every serializer.
   */
  private static StreamExecutionEnvironment env() {
    Configuration flink = new Configuration();
    flink.set(PipelineOptions.GENERIC_TYPES, false);
    flink.set(PipelineOptions.AUTO_GENERATE_UIDS, false);
    return StreamExecutionEnvironment.getExecutionEnvironment(flink);
  }

  private static void attach(SpendingSink sink, StreamExecutionEnvironment env) {
    sink.attach(
        env.fromData(
                TypeInformation.of(WindowedSpending.class),
                new WindowedSpending(
                    new SpendingKey("u", "EUR"),
                    new EventTimeWindow(0, 3_600_000),
                    new SpendingAggregate(1, 1)))
            .uid(SOURCE_UID));
  }

  @Test
  void theModuleBindsThePortWithoutTouchingTheWarehouse() {
    Path warehouse = temp.resolve("not-yet");

    SpendingSink sink =
        injector(options(warehouse, MaintenanceConfig.builder().build()))
            .getInstance(SpendingSink.class);

    assertThat(sink).isInstanceOf(IcebergSpendingSink.class);
    assertThat(warehouse).doesNotExist();
  }

  @Test
  void attachingCreatesTheTableAndGivesEverySinkOperatorAStableUid() throws Exception {
    Path warehouse = temp.resolve("warehouse");
    SpendingSink sink =
        injector(options(warehouse, MaintenanceConfig.builder().build()))
            .getInstance(SpendingSink.class);
    StreamExecutionEnvironment env = env();

    attach(sink, env);

    try (HadoopCatalog catalog =
        new HadoopCatalog(new org.apache.hadoop.conf.Configuration(false), warehouse.toString())) {
      assertThat(catalog.tableExists(TableIdentifier.of("analytics", "user_hourly_spending")))
          .isTrue();
    }
    List<StreamNode> nodes =
        List.copyOf(env.getStreamGraph().getStreamNodes()).stream()
            .filter(n -> !SOURCE_UID.equals(n.getTransformationUID()))
            .toList();
    assertThat(nodes)
        .extracting(StreamNode::getOperatorName)
        .anyMatch(name -> name.contains("Writer"))
        .anyMatch(name -> name.contains("Committer"))
        .anyMatch(name -> name.contains("Iceberg table maintenance"));
    assertThat(nodes)
        .filteredOn(node -> node.getOperatorName().contains("Iceberg table maintenance"))
        .singleElement()
        .satisfies(
            node -> {
              assertThat(node.getParallelism()).isEqualTo(1);
              assertThat(node.getTransformationUID()).isEqualTo("tally-iceberg-sink-maintenance");
              // Chained at job parallelism 1, its max parallelism would change with the job's
              // parallelism and savepoints would not restore across a rescale to or from 1.
              assertThat(node.getOperatorFactory().getChainingStrategy())
                  .isEqualTo(ChainingStrategy.NEVER);
              assertThat(node.getMaxParallelism()).isEqualTo(1);
            });
    assertThat(nodes)
        .allSatisfy(
            node ->
                assertThat(node.getTransformationUID())
                    .as("uid of %s", node.getOperatorName())
                    .contains("tally-iceberg-sink"));
  }

  @Test
  void withoutMaintenanceOnlyTheWriteOperatorsAreAdded() {
    SpendingSink sink =
        injector(options(temp.resolve("w"), MaintenanceConfig.disabled()))
            .getInstance(SpendingSink.class);
    StreamExecutionEnvironment env = env();

    attach(sink, env);

    assertThat(env.getStreamGraph().getStreamNodes())
        .extracting(StreamNode::getOperatorName)
        .noneMatch(name -> name.contains("maintenance"));
  }

  @Test
  void anIncompatibleTableFailsTheAttachNotTheJob() throws Exception {
    Path warehouse = temp.resolve("warehouse");
    Files.createDirectories(warehouse);
    try (HadoopCatalog catalog =
        new HadoopCatalog(new org.apache.hadoop.conf.Configuration(false), warehouse.toString())) {
      catalog.createTable(
          TableIdentifier.of("analytics", "user_hourly_spending"),
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
    }
    SpendingSink sink =
        injector(
                options(
                    warehouse,
                    MaintenanceConfig.builder().compactInterval(Duration.ofSeconds(5)).build()))
            .getInstance(SpendingSink.class);

    assertThatThrownBy(() -> attach(sink, env()))
        .isInstanceOf(IncompatibleTableException.class)
        .hasMessageContaining("column user_id is missing");
  }
}
