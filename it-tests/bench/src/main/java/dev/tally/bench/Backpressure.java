package dev.tally.bench;

import dev.tally.stack.FlinkRestClient;
import dev.tally.stack.HelpOption;
import dev.tally.stack.LocalStack;
import dev.tally.stack.LoopbackPorts;
import dev.tally.stack.TallyJobLauncher;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;

/**
 * Checkpoints under backpressure: the live job with a throttled spending sink ({@link
 * ThrottledTallyMain}), once with aligned and once with unaligned checkpoints, same traffic; the
 * checkpoint statistics come from Flink's REST API ({@code /jobs/:id/checkpoints}) at the end of
 * each run.
 */
final class Backpressure {

  /**
   * By name, not by class literal: this JVM has no Flink, and only the job's JVM loads the class.
   */
  private static final String THROTTLED_MAIN = "dev.tally.bench.ThrottledTallyMain";

  private final BenchOptions o;
  private final Path out;
  private final Path work;

  Backpressure(BenchOptions options, Path out, Path work) {
    this.o = options;
    this.out = out;
    this.work = work;
  }

  void run() throws Exception {
    Bench.say("Starting the local stack under " + work);
    List<Map<String, Object>> runs = new ArrayList<>();
    try (LocalStack stack = LocalStack.start(work.resolve("stack"))) {
      runs.add(once(stack, "aligned", List.of("checkpoints.unaligned=false")));
      runs.add(
          once(
              stack,
              "unaligned",
              List.of("checkpoints.unaligned=true", "checkpoints.aligned-timeout=0s")));
    }
    StringBuilder md = new StringBuilder();
    md.append(
            String.format(
                Locale.ROOT,
                "Backpressure: %,d events/s for %d s, sink throttled to %,d rows/s per subtask,"
                    + " windows of %d ms, checkpoints every %d s, parallelism %d.%n%n",
                o.rate,
                o.duration.toSeconds(),
                o.throttle,
                o.window.toMillis(),
                o.checkpointInterval.toSeconds(),
                o.parallelism))
        .append(
            "| checkpoints | completed | failed | end-to-end p50 ms | p99 ms | max ms |"
                + " persisted in-flight data max bytes |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|\n");
    StringBuilder json =
        new StringBuilder("{\"measured_at\": \"" + Instant.now() + "\", \"runs\": [");
    for (int i = 0; i < runs.size(); i++) {
      Map<String, Object> r = runs.get(i);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s | %s |%n",
              r.get("mode"),
              r.get("completed"),
              r.get("failed"),
              r.get("e2e_p50_ms"),
              r.get("e2e_p99_ms"),
              r.get("e2e_max_ms"),
              r.get("persisted_max_bytes")));
      json.append(i == 0 ? "" : ", ").append('{');
      boolean first = true;
      for (Map.Entry<String, Object> e : r.entrySet()) {
        json.append(first ? "" : ", ")
            .append(Report.quote(e.getKey()))
            .append(": ")
            .append(
                e.getValue() instanceof Number
                    ? e.getValue().toString()
                    : Report.quote(String.valueOf(e.getValue())));
        first = false;
      }
      json.append('}');
    }
    json.append("]}\n");
    Files.createDirectories(out);
    Files.writeString(out.resolve("backpressure.md"), md.toString());
    Files.writeString(out.resolve("backpressure.json"), json.toString());
    System.out.println();
    System.out.println(md);
    Bench.say("Written " + out.resolve("backpressure.json") + " and .md; logs under " + work);
  }

  private Map<String, Object> once(LocalStack stack, String mode, List<String> checkpointing)
      throws Exception {
    String topic = "bench-backpressure-" + mode;
    stack.kafka().createTopic(topic, o.partitions, Map.of("retention.ms", "-1"));
    Path dir = Files.createDirectories(work.resolve(mode));
    Path config =
        JobRuns.writeConfig(
            dir, stack, topic, "tally_bp_" + mode, o.parallelism, o.checkpointInterval);
    List<String> overrides = new ArrayList<>(checkpointing);
    overrides.add("aggregation.window-size=" + o.window.toMillis() + "ms");
    overrides.add("watermarks.out-of-orderness=" + o.outOfOrderness.toMillis() + "ms");
    int webPort = LoopbackPorts.freePort();
    FlinkRestClient rest = FlinkRestClient.onLoopback(webPort);
    TallyJobLauncher job =
        TallyJobLauncher.of(config)
            .leadingArguments(List.of("--rows-per-second", Integer.toString(o.throttle)))
            .overrides(overrides);
    Path log = dir.resolve("job.log");
    MeasuredProcess process =
        MeasuredProcess.start(
            JobRuns.locally(
                    job,
                    o.jobJar(),
                    o.flinkLib(),
                    webPort,
                    dir,
                    stack.objectStore().awsClientEnvironment())
                .mainClass(THROTTLED_MAIN, throttledClasspath())
                .process(log));
    FlinkRestClient.CheckpointStatistics stats;
    long produced;
    try {
      String jobId = JobRuns.awaitJobId(rest, process, log);
      Bench.say(
          String.format(
              Locale.ROOT,
              "%s checkpoints: producing %,d events/s for %d s into a sink throttled to %,d rows/s"
                  + " per subtask…",
              mode,
              o.rate,
              o.duration.toSeconds(),
              o.throttle));
      LiveTraffic traffic =
          new LiveTraffic(stack.kafka().bootstrapServers(), topic, o.rate, o.seed, o.users, o.zipf);
      Thread producer = new Thread(traffic, "live-traffic-" + mode);
      producer.start();
      Thread.sleep(o.duration.toMillis());
      Files.writeString(
          dir.resolve("checkpoints.json"), rest.text("/jobs/" + jobId + "/checkpoints"));
      stats = rest.checkpoints(jobId);
      traffic.stop();
      producer.join();
      produced = traffic.produced();
    } finally {
      JobRuns.endLiveJob(process, dir);
    }

    Map<String, Object> result = new LinkedHashMap<>();
    result.put("mode", mode);
    result.put("completed", stats.counts().completed());
    result.put("failed", stats.counts().failed());
    Optional<FlinkRestClient.Statistics> e2e = stats.of("end_to_end_duration");
    result.put("e2e_p50_ms", e2e.map(e -> (long) e.p50()).orElse(-1L));
    result.put("e2e_p99_ms", e2e.map(e -> (long) e.p99()).orElse(-1L));
    result.put("e2e_max_ms", e2e.map(e -> (long) e.max()).orElse(-1L));
    result.put(
        "persisted_max_bytes", stats.of("persisted_data").map(p -> (long) p.max()).orElse(-1L));
    result.put("produced", produced);
    Bench.say(mode + ": " + result);
    return result;
  }

  /**
   * What the throttled main needs behind the job jar and the Flink libraries: the bench, picocli
   * and the stack's {@link HelpOption}.
   */
  private List<Path> throttledClasspath() {
    return List.of(o.benchClasses(), locationOf(CommandLine.class), locationOf(HelpOption.class));
  }

  private static Path locationOf(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate the jar of " + type.getName(), e);
    }
  }
}
