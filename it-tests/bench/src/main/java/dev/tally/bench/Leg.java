package dev.tally.bench;

/**
 * One contender of the throughput run: a command in its own JVM, reading the same preloaded topic
 * at the same parallelism, measured from outside by {@link MeasuredProcess}. To add a leg,
 * implement this and list it in {@link Bench#legs()}.
 */
interface Leg {

  /** Short name, used in the table, the JSON and the chart. */
  String name();

  /** Why this leg cannot run in this build, or {@code null} when it can. */
  String unavailable(BenchContext context);

  /** Runs the leg to completion and checks its output. */
  LegResult run(BenchContext context) throws Exception;
}
