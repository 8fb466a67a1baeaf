package dev.tally.bench;

/**
 * The seed's Flink SQL pipeline through the job jar's SQL runner (issue 7), same state backend and
 * checkpoint policy, bounded with {@code 'scan.bounded.mode'='latest-offset'}.
 *
 * <p>Not wired yet: the runner is not in this build, and the bench reports no figure rather than a
 * made-up one. To wire it, make {@link #unavailable} return {@code null} and {@link #run} do what
 * {@link TallyLeg#run} does with the runner's command line instead of {@code TallyMain --local}:
 * {@link TallyJobLauncher#command} with the runner's main and arguments, the SQL script pointed at
 * {@link BenchContext#topic()} and a table of its own in {@link BenchContext#NAMESPACE}, then
 * {@link IcebergStats#read} on that table for the same check against the workload.
 */
final class SqlLeg implements Leg {

  @Override
  public String name() {
    return "sql";
  }

  @Override
  public String unavailable(BenchContext context) {
    return "not available: the SQL runner (issue 7) is not in this build yet";
  }

  @Override
  public LegResult run(BenchContext context) {
    throw new UnsupportedOperationException(unavailable(context));
  }
}
