package dev.tally.bench;

import java.nio.file.Files;
import java.util.List;
import java.util.stream.Stream;

/**
 * Tally's job, bounded: the job jar's {@code TallyMain --local} reads the topic to the offsets that
 * were latest at its start, with RocksDB state, checkpoints at the bench's interval and
 * exactly-once Iceberg upserts, then ends (the final watermark fires every window, the final
 * checkpoint commits). Processing time runs from the job's submission, as its REST API reports it,
 * to the exit of its JVM: task deployment, reading, aggregating and the last commit are in, the
 * JVM's start is not.
 */
final class TallyLeg implements Leg {

  static final String TABLE = "tally_spending";

  @Override
  public String name() {
    return "tally";
  }

  @Override
  public String unavailable(BenchContext context) {
    if (!Files.isRegularFile(context.jobJar()) || !Files.isDirectory(context.flinkLib())) {
      return "no job jar at " + context.jobJar() + " or no " + context.flinkLib() + ": build first";
    }
    return null;
  }

  @Override
  public LegResult run(BenchContext context) throws Exception {
    return run(context, JobWatch.NONE);
  }

  /** {@link #run(BenchContext)}, {@code watch} following the job while it runs. */
  LegResult run(BenchContext context, JobWatch watch) throws Exception {
    JobRuns.Finished run =
        JobRuns.runLeg(
            context,
            name(),
            TABLE,
            List.of(),
            Stream.concat(Stream.of("kafka.source.bounded=true"), context.tallySettings().stream())
                .toList(),
            context.stack().objectStore().awsClientEnvironment(),
            watch);
    if (run.exit() != 0) {
      return LegResult.failed(name(), "exit code " + run.exit() + ", see " + run.log());
    }
    return run.result(
        name(), context, IcebergStats.read(context.stack(), TABLE), context.expectedRows());
  }
}
