package dev.tally.adapters.iceberg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Pure planning of one compaction: which partitions to rewrite, and which delete files apply to
 * nothing once they are rewritten. No I/O: {@link PartitionCompaction} feeds it what a table scan
 * and the delete manifests say.
 *
 * <p>The rules are Iceberg's (format v2) rules for when a delete file applies to a data file: an
 * equality delete applies to the data files of its scope with a <em>lower</em> data sequence
 * number, a position delete to those with a lower <em>or equal</em> one that it names. A
 * partitioned delete's scope is its own partition of its own spec; a delete of an unpartitioned
 * spec is global and applies to every data file of every spec. A delete file may be dropped exactly
 * when it applies to no data file that remains after the rewrite. Rewritten partitions are
 * rewritten whole and their new data files take the data sequence number of the snapshot the
 * compaction started from, so every delete committed up to that snapshot no longer applies there,
 * and every delete the streaming writer commits concurrently (a higher sequence number) still
 * applies to the new files.
 */
final class CompactionPlanner {

  private CompactionPlanner() {}

  /**
   * Where a file lives for the purpose of delete matching.
   *
   * @param specId the partition spec the file was written with
   * @param partition the partition as a path, {@code ""} for an unpartitioned spec
   * @param unpartitioned whether {@code specId} is an unpartitioned spec
   */
  record Scope(int specId, String partition, boolean unpartitioned) {}

  /**
   * A live data file.
   *
   * @param rewritten written by this compaction: a new path, so no existing position delete can
   *     name it
   */
  record DataFileInfo(String path, Scope scope, long dataSequenceNumber, boolean rewritten) {

    DataFileInfo(String path, Scope scope, long dataSequenceNumber) {
      this(path, scope, dataSequenceNumber, false);
    }
  }

  /** A live delete file. */
  record DeleteFileInfo(String path, Scope scope, long dataSequenceNumber, boolean equality) {

    /** Whether this delete applies to a data file, by Iceberg's scope and sequence rules. */
    boolean appliesTo(DataFileInfo data) {
      boolean inScope = scope.unpartitioned() || scope.equals(data.scope());
      if (!inScope) {
        return false;
      }
      if (equality) {
        return data.dataSequenceNumber() < dataSequenceNumber;
      }
      // A position delete names the data files it applies to, and none names a file this
      // compaction writes.
      return !data.rewritten() && data.dataSequenceNumber() <= dataSequenceNumber;
    }
  }

  /**
   * What to do.
   *
   * @param partitions partitions to rewrite whole, each with its current data files
   * @param danglingDeletes paths of delete files that apply to no data file after the rewrite
   */
  record Plan(Map<Scope, List<DataFileInfo>> partitions, Set<String> danglingDeletes) {
    boolean isEmpty() {
      return partitions.isEmpty() && danglingDeletes.isEmpty();
    }
  }

  /**
   * Plans a compaction of the table state given by {@code data} and {@code deletes} (all live files
   * of one snapshot with data sequence number {@code startSequenceNumber}).
   *
   * @param currentSpecId only partitions of the table's current spec are rewritten, because the
   *     rewrite writes with that spec; files of older specs stay as they are
   * @param dataFileThreshold rewrite a partition with at least this many data files
   * @param deleteFileThreshold rewrite a partition when at least this many delete files apply to
   *     its data files
   */
  static Plan plan(
      List<DataFileInfo> data,
      List<DeleteFileInfo> deletes,
      long startSequenceNumber,
      int currentSpecId,
      int dataFileThreshold,
      int deleteFileThreshold) {
    Map<Scope, List<DataFileInfo>> byPartition = new LinkedHashMap<>();
    for (DataFileInfo file : data) {
      byPartition.computeIfAbsent(file.scope(), s -> new ArrayList<>()).add(file);
    }
    Map<Scope, List<DataFileInfo>> toRewrite = new LinkedHashMap<>();
    for (Map.Entry<Scope, List<DataFileInfo>> partition : byPartition.entrySet()) {
      if (partition.getKey().specId() != currentSpecId) {
        continue;
      }
      List<DataFileInfo> files = partition.getValue();
      // Deletes already dangling (e.g. left by a compaction that did not remove them) are dropped
      // without a rewrite; only deletes a reader still has to apply make a rewrite worthwhile.
      long applying = deletes.stream().filter(d -> files.stream().anyMatch(d::appliesTo)).count();
      if (files.size() >= dataFileThreshold || applying >= deleteFileThreshold) {
        toRewrite.put(partition.getKey(), List.copyOf(files));
      }
    }
    List<DataFileInfo> remaining = new ArrayList<>();
    for (DataFileInfo file : data) {
      if (!toRewrite.containsKey(file.scope())) {
        remaining.add(file);
      }
    }
    for (Scope rewritten : toRewrite.keySet()) {
      // Stands for the rewritten files, whatever their number: what matters is their scope and
      // sequence number.
      remaining.add(new DataFileInfo("(rewritten)", rewritten, startSequenceNumber, true));
    }
    return new Plan(toRewrite, dangling(remaining, deletes));
  }

  /** Paths of the deletes that apply to none of {@code remaining}. */
  static Set<String> dangling(List<DataFileInfo> remaining, List<DeleteFileInfo> deletes) {
    Set<String> dangling = new LinkedHashSet<>();
    for (DeleteFileInfo delete : deletes) {
      if (remaining.stream().noneMatch(delete::appliesTo)) {
        dangling.add(delete.path());
      }
    }
    return dangling;
  }
}
