package dev.tally.it.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import com.google.inject.Stage;
import dev.tally.adapters.iceberg.IcebergSinkConfig;
import dev.tally.adapters.iceberg.IcebergSinkModule;
import dev.tally.adapters.iceberg.IncompatibleTableException;
import dev.tally.adapters.iceberg.MaintenanceConfig;
import dev.tally.domain.spending.WindowedSpending;
import dev.tally.ports.out.SpendingSink;
import java.time.Instant;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Creating and checking the output table through a real REST catalog on real S3 storage. */
class IcebergTableBootstrapIT {

  private static IcebergRestStack stack;

  @BeforeAll
  static void startStack() {
    stack = IcebergRestStack.start("IcebergTableBootstrapIT");
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  /** What the job does at start: build the sink from its Guice module and attach it. */
  private static void startJobAgainst(IcebergSinkConfig options) {
    SpendingSink sink =
        Guice.createInjector(Stage.PRODUCTION, new IcebergSinkModule(options))
            .getInstance(SpendingSink.class);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    sink.attach(
        env.fromData(
            TypeInformation.of(WindowedSpending.class),
            IcebergRestStack.spending("u", "EUR", Instant.parse("2026-11-29T10:00:00Z"), 1, 1)));
  }

  @Test
  void theTableIsCreatedAsSpecifiedAndASecondStartLeavesItAlone() {
    IcebergSinkConfig options =
        stack
            .sinkConfig("bootstrap_it", "user_hourly_spending")
            .userIdBuckets(8)
            .maintenance(MaintenanceConfig.disabled())
            .build();

    startJobAgainst(options);
    Table created = stack.load("bootstrap_it", "user_hourly_spending");
    String metadataAfterCreate = TableUtil.metadataFileLocation(created);
    startJobAgainst(options);
    Table again = stack.load("bootstrap_it", "user_hourly_spending");

    assertThat(created.location()).startsWith("s3://");
    assertThat(created.schema().columns())
        .extracting(f -> f.name() + " " + (f.isRequired() ? "required " : "optional ") + f.type())
        .containsExactly(
            "user_id required string",
            "currency required string",
            "window_start required timestamptz",
            "window_end required timestamptz",
            "total_spent_cents required long",
            "transaction_count required long");
    assertThat(created.schema().identifierFieldNames())
        .containsExactlyInAnyOrder("user_id", "currency", "window_start");
    assertThat(created.spec().fields())
        .extracting(f -> f.transform() + "(" + created.schema().findColumnName(f.sourceId()) + ")")
        .containsExactly("day(window_start)", "bucket[8](user_id)");
    assertThat(TableUtil.formatVersion(created)).isEqualTo(2);
    assertThat(created.properties())
        .containsEntry(TableProperties.UPSERT_ENABLED, "true")
        .containsEntry(TableProperties.DEFAULT_FILE_FORMAT, "parquet")
        .containsEntry(TableProperties.PARQUET_COMPRESSION, "zstd")
        .containsEntry(
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            Long.toString(IcebergSinkConfig.TARGET_FILE_SIZE.defaultValue()));
    assertThat(again.uuid()).isEqualTo(created.uuid());
    assertThat(TableUtil.metadataFileLocation(again)).isEqualTo(metadataAfterCreate);
  }

  @Test
  void anIncompatibleExistingTableFailsTheStartNamingTheMismatch() {
    Namespace namespace = Namespace.of("bootstrap_it_wrong");
    stack.client().createNamespace(namespace);
    Schema theirs =
        new Schema(
            java.util.List.of(
                Types.NestedField.required(1, "user_id", Types.StringType.get()),
                Types.NestedField.required(2, "currency", Types.StringType.get()),
                Types.NestedField.required(3, "window_start", Types.TimestampType.withZone()),
                Types.NestedField.required(4, "window_end", Types.TimestampType.withZone()),
                Types.NestedField.required(5, "total_spent_cents", Types.DecimalType.of(38, 2)),
                Types.NestedField.required(6, "transaction_count", Types.LongType.get())),
            Set.of(1, 2, 3));
    TableIdentifier id = TableIdentifier.of(namespace, "user_hourly_spending");
    stack.client().createTable(id, theirs);
    String metadataBefore = TableUtil.metadataFileLocation(stack.client().loadTable(id));

    assertThatThrownBy(
            () ->
                startJobAgainst(
                    stack
                        .sinkConfig("bootstrap_it_wrong", "user_hourly_spending")
                        .maintenance(MaintenanceConfig.disabled())
                        .build()))
        .isInstanceOf(IncompatibleTableException.class)
        .hasMessageContainingAll(
            "bootstrap_it_wrong.user_hourly_spending",
            "column total_spent_cents has type decimal(38, 2), expected long",
            "partition spec is [], expected [day(window_start), bucket[N](user_id)]");
    assertThat(TableUtil.metadataFileLocation(stack.client().loadTable(id)))
        .as("the user's table is never altered")
        .isEqualTo(metadataBefore);
  }
}
