package dev.tally.runtime.topology;

/**
 * Map-state key of one open window of the current user: the currency and the window start.
 *
 * @param currency the ISO 4217 code
 * @param windowStart the window start, epoch milliseconds
 */
public record CurrencyWindow(String currency, long windowStart) {}
