package dev.tally.it.oracle;

/** A rejected record: where it was in the source topic and why. */
public record Rejection(int partition, long offset, String reason) {}
