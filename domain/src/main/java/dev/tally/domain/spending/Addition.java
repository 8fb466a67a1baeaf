package dev.tally.domain.spending;

/**
 * What counting into a {@link SpendingAggregate} gives: the exact new aggregate, or the {@link
 * Overflow} that prevents it. A result, not an exception, so a caller rejects the record with its
 * reason on an ordinary path; the success case is the aggregate itself, so it costs no wrapper.
 */
public sealed interface Addition permits SpendingAggregate, Overflow {}
