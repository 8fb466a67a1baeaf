/**
 * Flink type information and serializers for the domain types that cross operator boundaries.
 * Sources (adapters) declare them on the streams they produce and the runtime reads them on the
 * other side of a shuffle, so they live here, where both can see them without seeing each other.
 */
package dev.tally.ports.types;
