package dev.tally.bench;

import dev.tally.stack.LoopbackPorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

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
    Path dir = Files.createDirectories(context.work().resolve(name()));
    Path config =
        TallyJobLauncher.writeConfig(
            dir,
            context.stack(),
            context.topic(),
            TABLE,
            context.parallelism(),
            context.checkpointInterval());
    TallyJobLauncher job = new TallyJobLauncher(LoopbackPorts.freePort());
    Path log = dir.resolve("job.log");
    MeasuredProcess process =
        MeasuredProcess.start(
            job.command(
                dir,
                context.jobJar(),
                context.flinkLib(),
                null,
                TallyJobLauncher.MAIN,
                config,
                List.of("kafka.source.bounded=true"),
                context.jfr()
                    ? List.of(
                        "-XX:StartFlightRecording=settings=profile,filename="
                            + dir.resolve(name() + ".jfr"))
                    : List.of()),
            context.stack().objectStore().awsClientEnvironment(),
            log);
    Optional<Long> submitted = Optional.empty();
    while (process.isAlive() && submitted.isEmpty()) {
      submitted = job.jobStartMillis();
      Thread.sleep(100);
    }
    int exit = process.await(Duration.ofHours(2));
    if (exit != 0) {
      return LegResult.failed(name(), "exit code " + exit + ", see " + log);
    }
    double processing =
        submitted
            .map(start -> (process.exitedEpochMillis() - start) / 1e3)
            .orElse(process.wall().toMillis() / 1e3);
    IcebergStats table = IcebergStats.read(context.stack(), TABLE);
    boolean right =
        table.transactions() == context.events()
            && table.amountSum() == context.expectedAmountSum()
            && table.rows() == context.expectedRows();
    String note =
        String.format(
            "table: %,d rows (expected %,d), transaction_count sums to %,d (expected %,d),"
                + " total_spent_cents %s the generator's sum",
            table.rows(),
            context.expectedRows(),
            table.transactions(),
            context.events(),
            table.amountSum() == context.expectedAmountSum() ? "equals" : "DIFFERS FROM");
    return new LegResult(
        name(),
        right ? "ok" : "wrong",
        note,
        table.transactions(),
        processing,
        process.wall().toMillis() / 1e3,
        process.cpu().toMillis() / 1e3,
        process.peakRssBytes() / 1048576.0,
        table.commits(),
        table.dataFiles(),
        table.deleteFiles());
  }
}
