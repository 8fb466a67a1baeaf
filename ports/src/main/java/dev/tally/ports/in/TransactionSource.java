package dev.tally.ports.in;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Where transactions enter Tally. An implementation reads records from some system, decodes and
 * validates them with the domain's rules, assigns event-time timestamps and watermarks, and splits
 * the result into accepted transactions and rejected records.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>Every record read ends in exactly one of the two streams; decoding never throws on a
 *       record's content.
 *   <li>The accepted stream carries event-time timestamps and watermarks (docs/behaviour.md
 *       "Aggregation": bounded out-of-orderness per source partition, idle partitions do not hold
 *       the watermark back).
 *   <li>Operators added to the environment have stable uids, so savepoints survive upgrades.
 *   <li>No connector type appears in the returned streams: only domain types.
 * </ul>
 */
public interface TransactionSource {

  /**
   * Adds the source to {@code env} and returns its two output streams. Called once per job graph.
   *
   * @param env the environment to add the source operators to
   * @return the accepted transactions and the records rejected while decoding
   */
  TransactionStreams open(StreamExecutionEnvironment env);
}
