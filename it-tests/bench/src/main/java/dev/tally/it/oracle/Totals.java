package dev.tally.it.oracle;

/** A row's values: the exact sum and the number of counted transactions. */
public record Totals(long sum, long count) {
  Totals plus(Totals other) {
    return new Totals(Math.addExact(sum, other.sum), count + other.count);
  }
}
