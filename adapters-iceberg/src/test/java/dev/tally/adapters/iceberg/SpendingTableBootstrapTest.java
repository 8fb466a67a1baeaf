package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.list;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Table creation and the compatibility check, on a real Hadoop catalog in a temporary folder. */
class SpendingTableBootstrapTest {

  private static final TableIdentifier ID = TableIdentifier.of("analytics", "user_hourly_spending");

  @TempDir Path warehouse;

  private HadoopCatalog catalog;
  private IcebergSinkConfig options;

  @BeforeEach
  void openCatalog() {
    options =
        IcebergSinkConfig.builder()
            .catalog(CatalogConfig.builder().warehouse(warehouse.toString()).build())
            .userIdBuckets(8)
            .targetFileSizeBytes(64L * 1024 * 1024)
            .build();
    catalog = new HadoopCatalog(new Configuration(false), warehouse.toString());
  }

  @AfterEach
  void closeCatalog() throws Exception {
    catalog.close();
  }

  @Test
  void createsTheNamespaceAndTableAsSpecified() {
    Table table = SpendingTableBootstrap.ensureTable(catalog, options);

    assertThat(catalog.namespaceExists(Namespace.of("analytics"))).isTrue();
    assertThat(table.schema().asStruct()).isEqualTo(SpendingTable.SCHEMA.asStruct());
    assertThat(table.schema().identifierFieldNames())
        .containsExactlyInAnyOrder("user_id", "currency", "window_start");
    assertThat(table.spec().fields())
        .extracting(
            f -> f.transform().toString() + "(" + table.schema().findColumnName(f.sourceId()) + ")")
        .containsExactly("day(window_start)", "bucket[8](user_id)");
    assertThat(TableUtil.formatVersion(table)).isEqualTo(2);
    assertThat(table.properties())
        .containsEntry(TableProperties.UPSERT_ENABLED, "true")
        .containsEntry(TableProperties.DEFAULT_FILE_FORMAT, "parquet")
        .containsEntry(TableProperties.PARQUET_COMPRESSION, "zstd")
        .containsEntry(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(64L << 20))
        .containsEntry("flink.max-continuous-empty-commits", "1")
        .containsEntry("write.metadata.delete-after-commit.enabled", "true");
    assertThat(TableCompatibility.mismatches(table)).isEmpty();
  }

  @Test
  void anExistingTableIsMadeToCommitEveryCheckpointWhetherUnsetOrSetOtherwise() {
    createdWithoutEmptyCommitsProperty(Map.of());

    Table started = SpendingTableBootstrap.ensureTable(catalog, options);

    assertThat(started.properties()).containsEntry("flink.max-continuous-empty-commits", "1");
    catalog
        .loadTable(ID)
        .updateProperties()
        .set("flink.max-continuous-empty-commits", "10")
        .commit();
    SpendingTableBootstrap.ensureTable(catalog, options);
    assertThat(catalog.loadTable(ID).properties())
        .containsEntry("flink.max-continuous-empty-commits", "1");
  }

  @Test
  void aTableOfAnotherJobIsNotMadeToCommitEveryCheckpoint() {
    createdWithoutEmptyCommitsProperty(Map.of(TableOwnership.WRITER_PROPERTY, "payments-eu"));

    assertThatThrownBy(
            () -> SpendingTableBootstrap.ensureTable(catalog, writtenBy("payments-us", false)))
        .isInstanceOf(TableOwnedByAnotherJobException.class);
    assertThat(catalog.loadTable(ID).properties())
        .doesNotContainKey("flink.max-continuous-empty-commits");
  }

  /** A table as a release that did not set the property created it, with {@code extra} set. */
  private void createdWithoutEmptyCommitsProperty(Map<String, String> extra) {
    Map<String, String> properties = new LinkedHashMap<>(SpendingTable.tableProperties(64L << 20));
    properties.remove("flink.max-continuous-empty-commits");
    properties.putAll(extra);
    catalog
        .buildTable(ID, SpendingTable.SCHEMA)
        .withPartitionSpec(SpendingTable.partitionSpec(SpendingTable.SCHEMA, 8))
        .withProperties(properties)
        .create();
  }

  @Test
  void aCreatedTableRecordsItsWriter() {
    Table table = SpendingTableBootstrap.ensureTable(catalog, options);

    assertThat(table.properties()).containsEntry(TableOwnership.WRITER_PROPERTY, "tally");
    assertThat(catalog.loadTable(ID).properties())
        .containsEntry(TableOwnership.WRITER_PROPERTY, "tally");
  }

  @Test
  void aJobOfAnotherNameIsRefusedNamingTheTableAndItsOwner() {
    SpendingTableBootstrap.ensureTable(catalog, writtenBy("payments-eu", false));

    assertThatThrownBy(
            () -> SpendingTableBootstrap.ensureTable(catalog, writtenBy("payments-us", false)))
        .isInstanceOf(TableOwnedByAnotherJobException.class)
        .hasMessageContainingAll(
            "Iceberg table analytics.user_hourly_spending is written by the job \"payments-eu\"",
            "not by this job \"payments-us\"",
            "iceberg.take-over=true")
        .extracting(e -> ((TableOwnedByAnotherJobException) e).owner())
        .isEqualTo("payments-eu");
    assertThat(catalog.loadTable(ID).properties())
        .containsEntry(TableOwnership.WRITER_PROPERTY, "payments-eu");
    // The owner itself starts again as often as it likes.
    SpendingTableBootstrap.ensureTable(catalog, writtenBy("payments-eu", false));
  }

  @Test
  void aTakeOverMakesTheNewJobTheOwnerAndRefusesTheFormerOne() {
    SpendingTableBootstrap.ensureTable(catalog, writtenBy("payments-eu", false));

    SpendingTableBootstrap.ensureTable(catalog, writtenBy("payments-us", true));

    assertThat(catalog.loadTable(ID).properties())
        .containsEntry(TableOwnership.WRITER_PROPERTY, "payments-us");
    assertThatThrownBy(
            () -> SpendingTableBootstrap.ensureTable(catalog, writtenBy("payments-eu", false)))
        .isInstanceOf(TableOwnedByAnotherJobException.class)
        .hasMessageContaining("written by the job \"payments-us\"");
  }

  @Test
  void anUnownedTableIsClaimedByTheFirstJobToStartOnIt() {
    catalog
        .buildTable(ID, SpendingTable.SCHEMA)
        .withPartitionSpec(SpendingTable.partitionSpec(SpendingTable.SCHEMA, 8))
        .withProperties(SpendingTable.tableProperties(64L << 20))
        .create();

    SpendingTableBootstrap.ensureTable(catalog, writtenBy("payments-eu", false));

    assertThat(catalog.loadTable(ID).properties())
        .containsEntry(TableOwnership.WRITER_PROPERTY, "payments-eu");
  }

  private IcebergSinkConfig writtenBy(String job, boolean takeOver) {
    return IcebergSinkConfig.builder()
        .catalog(options.catalog())
        .writer(job)
        .takeOver(takeOver)
        .build();
  }

  @Test
  void aSecondStartAcceptsTheExistingTableUntouched() {
    Table created = SpendingTableBootstrap.ensureTable(catalog, options);
    IcebergSinkConfig otherBuckets =
        IcebergSinkConfig.builder().catalog(options.catalog()).userIdBuckets(32).build();

    Table again = SpendingTableBootstrap.ensureTable(catalog, otherBuckets);

    assertThat(again.uuid()).isEqualTo(created.uuid());
    assertThat(again.spec()).isEqualTo(created.spec()); // still bucket[8]: never altered
    assertThat(catalog.loadTable(ID).history()).isEmpty();
  }

  @Test
  void aTableThatMatchesInNothingGetsEveryMismatchNamed() {
    Schema wrong =
        new Schema(
            List.of(
                Types.NestedField.required(1, "currency", Types.StringType.get()),
                Types.NestedField.required(2, "user_id", Types.StringType.get()),
                Types.NestedField.required(3, "window_start", Types.TimestampType.withoutZone()),
                Types.NestedField.optional(4, "window_end", Types.TimestampType.withZone()),
                Types.NestedField.required(5, "total_spent_cents", Types.IntegerType.get()),
                Types.NestedField.required(6, "note", Types.StringType.get())),
            Set.of(2, 3));
    catalog.createNamespace(Namespace.of("analytics"));
    catalog
        .buildTable(ID, wrong)
        .withPartitionSpec(PartitionSpec.builderFor(wrong).day("window_start").build())
        .withProperty(TableProperties.FORMAT_VERSION, "1")
        .create();

    assertThatThrownBy(() -> SpendingTableBootstrap.ensureTable(catalog, options))
        .isInstanceOf(IncompatibleTableException.class)
        .hasMessageStartingWith(
            "Iceberg table analytics.user_hourly_spending is incompatible with Tally's output"
                + " table (Tally never alters an existing table): ")
        .asInstanceOf(type(IncompatibleTableException.class))
        .extracting(IncompatibleTableException::mismatches, list(String.class))
        .containsExactly(
            "column user_id is at position 2, expected 1 (the sink writes columns by position)",
            "column currency is at position 1, expected 2 (the sink writes columns by position)",
            "column window_start has type timestamp, expected timestamptz",
            "column window_end is optional, expected required",
            "column total_spent_cents has type int, expected long",
            "column transaction_count is missing (expected required long)",
            "unexpected column note required string (Tally writes none)",
            "identifier fields are [user_id, window_start], expected [currency, user_id,"
                + " window_start]",
            "partition spec is [day(window_start)], expected [day(window_start),"
                + " bucket[N](user_id)]",
            "format version is 1, expected 2 or later (upserts need row-level deletes)");
    assertThat(catalog.loadTable(ID).schema().asStruct()).isEqualTo(wrong.asStruct());
  }

  @Test
  void anExtraPartitionFieldIsAMismatch() {
    catalog.createNamespace(Namespace.of("analytics"));
    catalog
        .buildTable(ID, SpendingTable.SCHEMA)
        .withPartitionSpec(
            PartitionSpec.builderFor(SpendingTable.SCHEMA)
                .day("window_start")
                .bucket("user_id", 4)
                .identity("currency")
                .build())
        .withProperties(Map.of(TableProperties.FORMAT_VERSION, "2"))
        .create();

    assertThatThrownBy(() -> SpendingTableBootstrap.ensureTable(catalog, options))
        .asInstanceOf(type(IncompatibleTableException.class))
        .extracting(IncompatibleTableException::mismatches, list(String.class))
        .containsExactly(
            "partition spec is [day(window_start), bucket[4](user_id), identity(currency)],"
                + " expected [day(window_start), bucket[N](user_id)]");
  }

  @Test
  void anUnpartitionedTableIsAMismatchEvenWithTheRightSchema() {
    catalog.createNamespace(Namespace.of("analytics"));
    catalog.buildTable(ID, SpendingTable.SCHEMA).withProperty("format-version", "3").create();

    assertThatThrownBy(() -> SpendingTableBootstrap.ensureTable(catalog, options))
        .asInstanceOf(type(IncompatibleTableException.class))
        .extracting(IncompatibleTableException::mismatches, list(String.class))
        .containsExactly("partition spec is [], expected [day(window_start), bucket[N](user_id)]");
  }

  @Test
  void liveDataFilesOfAnEvolvedSpecAreAMismatchUntilRewritten() {
    Table table = SpendingTableBootstrap.ensureTable(catalog, options);
    DataFile old =
        DataFiles.builder(table.spec())
            .withPath(warehouse.resolve("old.parquet").toString())
            .withPartitionPath("window_start_day=2026-11-29/user_id_bucket=1")
            .withFileSizeInBytes(100)
            .withRecordCount(1)
            .build();
    table.newAppend().appendFile(old).commit();
    // Someone changes the bucket count: the sink's equality deletes now carry the new spec, and
    // Iceberg would not apply them to the rows of the file above.
    table
        .updateSpec()
        .removeField(Expressions.bucket("user_id", 8))
        .addField(Expressions.bucket("user_id", 16))
        .commit();

    assertThatThrownBy(() -> SpendingTableBootstrap.ensureTable(catalog, options))
        .asInstanceOf(type(IncompatibleTableException.class))
        .extracting(IncompatibleTableException::mismatches, list(String.class))
        .containsExactly(
            "live data files of partition spec 0 [day(window_start), bucket[8](user_id)], not the"
                + " current one: the equality deletes of an upsert would not apply to their rows"
                + " (rewrite them into the current spec first)");

    table.newDelete().deleteFile(old).commit();
    assertThat(TableCompatibility.mismatches(catalog.loadTable(ID))).isEmpty();
  }
}
