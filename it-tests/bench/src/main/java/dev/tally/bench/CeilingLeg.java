package dev.tally.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ceiling: {@link CeilingConsumer}, plain Kafka consumers on as many threads as the jobs'
 * parallelism, decoding every record with Tally's decoder. Processing time is measured inside it,
 * from just before the first poll to the last record decoded.
 */
final class CeilingLeg implements Leg {

  private static final Pattern RESULT =
      Pattern.compile(
          "CEILING records=(\\d+) accepted=(\\d+) amountSum=(-?\\d+) processingNanos=(\\d+)");

  @Override
  public String name() {
    return "ceiling";
  }

  @Override
  public String unavailable(BenchContext context) {
    return null;
  }

  @Override
  public LegResult run(BenchContext context) throws Exception {
    Path dir = Files.createDirectories(context.work().resolve(name()));
    Path log = dir.resolve("ceiling.log");
    MeasuredProcess process =
        MeasuredProcess.start(
            new ProcessBuilder(
                    BenchContext.java(),
                    "-Xmx1g",
                    "-XX:+UseG1GC",
                    "-cp",
                    System.getProperty("java.class.path"),
                    CeilingConsumer.class.getName(),
                    "--bootstrap-servers",
                    context.stack().kafka().bootstrapServers(),
                    "--topic",
                    context.topic(),
                    "--threads",
                    Integer.toString(context.parallelism()))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile()));
    int exit = process.await(Duration.ofHours(1));
    Matcher result = RESULT.matcher(Files.readString(log));
    if (exit != 0 || !result.find()) {
      return LegResult.failed(name(), "exit code " + exit + ", see " + log);
    }
    long records = Long.parseLong(result.group(1));
    long accepted = Long.parseLong(result.group(2));
    long amountSum = Long.parseLong(result.group(3));
    boolean right =
        records == context.events()
            && accepted == context.events()
            && amountSum == context.expectedAmountSum();
    String note =
        String.format(
            "read %,d, decoded and accepted %,d (expected %,d), amount sum %s the generator's",
            records,
            accepted,
            context.events(),
            amountSum == context.expectedAmountSum() ? "equals" : "DIFFERS FROM");
    return new LegResult(
        name(),
        right ? "ok" : "wrong",
        note,
        records,
        Long.parseLong(result.group(4)) / 1e9,
        process.wall().toMillis() / 1e3,
        process.cpu().toMillis() / 1e3,
        process.peakRssBytes() / 1048576.0,
        -1,
        -1,
        -1);
  }
}
