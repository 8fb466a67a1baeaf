package dev.tally.runtime.topology;

/**
 * The running aggregate of one open window and whether that exact value has been emitted already
 * (so early firing and the final firing do not write the same row twice).
 *
 * @param totalSpentCents exact running sum
 * @param transactionCount running count
 * @param emitted whether this value was emitted
 */
public record WindowState(long totalSpentCents, long transactionCount, boolean emitted) {}
