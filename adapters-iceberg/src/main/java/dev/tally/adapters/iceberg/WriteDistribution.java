package dev.tally.adapters.iceberg;

import org.apache.iceberg.DistributionMode;

/**
 * How rows are shuffled to the Iceberg writers. With identifier fields every mode keeps all
 * versions of a key on one writer, which upserts need; they differ in how many files a checkpoint
 * writes.
 */
public enum WriteDistribution {
  /**
   * Key by the identifier fields: even load, but every writer writes into every live partition, so
   * a checkpoint writes up to writers × partitions files.
   */
  NONE(DistributionMode.NONE),
  /**
   * Key by partition ({@code day} and {@code bucket(user_id)}): each partition has one writer, so a
   * checkpoint writes one file per live partition. The bucket keeps this from capping the useful
   * writer parallelism at the number of live days. The default. Tally does this shuffle itself
   * ({@link PartitionChannel}), keyed by the partition's values instead of Iceberg's formatted
   * partition path.
   */
  HASH(DistributionMode.HASH),
  /**
   * Iceberg falls back to keying by the identifier fields when identifier fields are set (range
   * distribution of primary keys is not safe in a streaming writer): the same as {@link #NONE}.
   */
  RANGE(DistributionMode.RANGE);

  private final DistributionMode mode;

  WriteDistribution(DistributionMode mode) {
    this.mode = mode;
  }

  DistributionMode icebergMode() {
    return mode;
  }
}
