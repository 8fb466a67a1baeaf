package dev.tally.adapters.iceberg;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.types.Types;

/**
 * Whether an existing table can take Tally's rows, and if not, every reason why.
 *
 * <p>The rules are strict on purpose, and Tally never alters a table to meet them:
 *
 * <ul>
 *   <li>exactly the six columns of {@link SpendingTable#SCHEMA}, in that order, with the same types
 *       and required-ness: the Iceberg sink maps each row to the table's columns by position;
 *   <li>identifier fields exactly {@code user_id, currency, window_start}: the upsert key;
 *   <li>partition spec exactly {@code day(window_start)} and {@code bucket(N, user_id)}; any N is
 *       accepted, since the bucket count only shapes how a day is spread over writers;
 *   <li>format version 2 or later: upserts need row-level deletes;
 *   <li>no live data file of another (older) partition spec: Iceberg applies a partitioned delete
 *       only to data files of its own spec ({@code DeleteFileIndex} keys them by spec id and
 *       partition), and the sink writes its equality deletes with the current spec, so an upsert of
 *       a row in such a file would add a second row for its key. Rewrite those files into the
 *       current spec first (e.g. Spark's {@code rewrite_data_files}).
 * </ul>
 */
final class TableCompatibility {

  private TableCompatibility() {}

  /** Every mismatch between {@code table} and Tally's output table, empty when compatible. */
  static List<String> mismatches(Table table) {
    List<String> mismatches = new ArrayList<>();
    checkColumns(table.schema(), SpendingTable.SCHEMA, mismatches);
    checkIdentifierFields(table.schema(), SpendingTable.IDENTIFIER_FIELDS, mismatches);
    checkPartitionSpec(table.spec(), table.schema(), mismatches);
    checkFormatVersion(table, mismatches);
    checkLiveFilesOfOtherSpecs(table, mismatches);
    return mismatches;
  }

  /**
   * Every mismatch between {@code table} and the anomaly table ({@link AnomalyTable}): the same
   * rules for columns, identifier fields and format version, and the partition spec exactly {@code
   * day(event_timestamp)}. Rows are only ever inserted, so files of older specs do no harm.
   */
  static List<String> anomalyTableMismatches(Table table) {
    List<String> mismatches = new ArrayList<>();
    checkColumns(table.schema(), AnomalyTable.SCHEMA, mismatches);
    checkIdentifierFields(table.schema(), AnomalyTable.IDENTIFIER_FIELDS, mismatches);
    String spec = describe(table.spec(), table.schema());
    String expected = describe(AnomalyTable.SPEC, AnomalyTable.SCHEMA);
    if (!spec.equals(expected)) {
      mismatches.add("partition spec is " + spec + ", expected " + expected);
    }
    checkFormatVersion(table, mismatches);
    return mismatches;
  }

  private static void checkColumns(Schema actual, Schema wanted, List<String> mismatches) {
    List<Types.NestedField> expected = wanted.columns();
    List<Types.NestedField> columns = actual.columns();
    Set<String> expectedNames = new HashSet<>();
    for (int i = 0; i < expected.size(); i++) {
      Types.NestedField want = expected.get(i);
      expectedNames.add(want.name());
      Types.NestedField have = actual.findField(want.name());
      if (have == null || actual.columns().indexOf(have) < 0) {
        mismatches.add("column " + want.name() + " is missing (expected " + describe(want) + ")");
        continue;
      }
      if (!have.type().equals(want.type())) {
        mismatches.add(
            "column " + want.name() + " has type " + have.type() + ", expected " + want.type());
      }
      if (have.isRequired() != want.isRequired()) {
        mismatches.add(
            "column "
                + want.name()
                + " is "
                + (have.isRequired() ? "required" : "optional")
                + ", expected "
                + (want.isRequired() ? "required" : "optional"));
      }
      int position = columns.indexOf(have);
      if (position != i) {
        mismatches.add(
            "column "
                + want.name()
                + " is at position "
                + (position + 1)
                + ", expected "
                + (i + 1)
                + " (the sink writes columns by position)");
      }
    }
    for (Types.NestedField column : columns) {
      if (!expectedNames.contains(column.name())) {
        mismatches.add(
            "unexpected column " + column.name() + " " + describe(column) + " (Tally writes none)");
      }
    }
  }

  private static void checkIdentifierFields(
      Schema actual, List<String> wanted, List<String> mismatches) {
    Set<String> have = new TreeSet<>(actual.identifierFieldNames());
    Set<String> want = new TreeSet<>(wanted);
    if (!have.equals(want)) {
      mismatches.add("identifier fields are " + have + ", expected " + want);
    }
  }

  private static void checkPartitionSpec(
      PartitionSpec spec, Schema schema, List<String> mismatches) {
    boolean day = false;
    boolean bucket = false;
    List<String> unexpected = new ArrayList<>();
    for (PartitionField field : spec.fields()) {
      String source = schema.findColumnName(field.sourceId());
      String transform = field.transform().toString();
      if (SpendingTable.WINDOW_START.equals(source) && "day".equals(transform) && !day) {
        day = true;
      } else if (SpendingTable.USER_ID.equals(source)
          && transform.startsWith("bucket[")
          && !bucket) {
        bucket = true;
      } else {
        unexpected.add(transform + "(" + source + ")");
      }
    }
    if (!day || !bucket || !unexpected.isEmpty()) {
      mismatches.add(
          "partition spec is "
              + describe(spec, schema)
              + ", expected [day(window_start), bucket[N](user_id)]");
    }
  }

  private static void checkFormatVersion(Table table, List<String> mismatches) {
    int version = TableUtil.formatVersion(table);
    if (version < SpendingTable.MIN_FORMAT_VERSION) {
      mismatches.add(
          "format version is "
              + version
              + ", expected "
              + SpendingTable.MIN_FORMAT_VERSION
              + " or later (upserts need row-level deletes)");
    }
  }

  private static void checkLiveFilesOfOtherSpecs(Table table, List<String> mismatches) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return;
    }
    Set<Integer> otherSpecs = new TreeSet<>();
    for (ManifestFile manifest : current.dataManifests(table.io())) {
      if (manifest.partitionSpecId() != table.spec().specId()
          && (manifest.hasAddedFiles() || manifest.hasExistingFiles())) {
        otherSpecs.add(manifest.partitionSpecId());
      }
    }
    for (int specId : otherSpecs) {
      mismatches.add(
          "live data files of partition spec "
              + specId
              + " "
              + describe(table.specs().get(specId), table.schema())
              + ", not the current one: the equality deletes of an upsert would not apply to"
              + " their rows (rewrite them into the current spec first)");
    }
  }

  private static String describe(Types.NestedField field) {
    return (field.isRequired() ? "required " : "optional ") + field.type();
  }

  private static String describe(PartitionSpec spec, Schema schema) {
    List<String> fields = new ArrayList<>();
    for (PartitionField field : spec.fields()) {
      fields.add(field.transform() + "(" + schema.findColumnName(field.sourceId()) + ")");
    }
    return fields.toString();
  }
}
