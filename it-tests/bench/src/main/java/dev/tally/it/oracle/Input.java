package dev.tally.it.oracle;

/**
 * A record to produce: its partition (by user, so one user's records keep their order), key, value
 * ({@code null} for a tombstone), Kafka record timestamp, and the reason it must be rejected for
 * (null if it is counted or dropped as an exact duplicate).
 */
public record Input(int partition, byte[] key, byte[] value, long timestamp, String rejected) {}
