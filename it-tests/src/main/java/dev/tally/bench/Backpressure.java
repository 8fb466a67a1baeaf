package dev.tally.bench;

import dev.tally.stack.LocalStack;
import dev.tally.stack.LoopbackPorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checkpoints under backpressure: the live job with a throttled spending sink ({@link
 * ThrottledTallyMain}), once with aligned and once with unaligned checkpoints, same traffic; the
 * checkpoint statistics come from Flink's REST API ({@code /jobs/:id/checkpoints}) at the end of
 * each run.
 */
final class Backpressure {

  private static final Pattern COMPLETED = Pattern.compile("\"completed\"\\s*:\\s*(\\d+)");
  private static final Pattern FAILED = Pattern.compile("\"failed\"\\s*:\\s*(\\d+)");

  private final Bench.Options o;
  private final Path out;
  private final Path work;

  Backpressure(Bench.Options options, Path out, Path work) {
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
    stack.kafka().createTopic(topic + ".dlq", 1, Map.of("retention.ms", "-1"));
    Path dir = Files.createDirectories(work.resolve(mode));
    Path config =
        TallyJobLauncher.writeConfig(
            dir, stack, topic, "tally_bp_" + mode, o.parallelism, o.checkpointInterval);
    List<String> overrides = new ArrayList<>(checkpointing);
    overrides.add("aggregation.window-size=" + o.window.toMillis() + "ms");
    overrides.add("watermarks.out-of-orderness=" + o.outOfOrderness.toMillis() + "ms");
    TallyJobLauncher job = new TallyJobLauncher(LoopbackPorts.freePort());
    List<String> command =
        job.command(
            dir,
            o.jobJar(),
            o.flinkLib(),
            o.benchClasses(),
            ThrottledTallyMain.class.getName(),
            List.of(Integer.toString(o.throttle)),
            config,
            overrides,
            List.of());
    MeasuredProcess process =
        MeasuredProcess.start(
            command, stack.objectStore().awsClientEnvironment(), dir.resolve("job.log"));
    String stats;
    long produced;
    try {
      String jobId = null;
      while (jobId == null) {
        if (!process.isAlive()) {
          throw new IllegalStateException("the job exited; see " + dir.resolve("job.log"));
        }
        jobId = job.jobId().orElse(null);
        Thread.sleep(200);
      }
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
      stats = job.get("/jobs/" + jobId + "/checkpoints").orElse("{}");
      Files.writeString(dir.resolve("checkpoints.json"), stats);
      traffic.stop();
      producer.join();
      produced = traffic.produced();
    } finally {
      TallyJobLauncher.endLiveJob(process, dir);
    }

    Map<String, Object> result = new LinkedHashMap<>();
    result.put("mode", mode);
    result.put("completed", firstLong(COMPLETED, stats));
    result.put("failed", firstLong(FAILED, stats));
    Map<String, Long> e2e = summary(stats, "end_to_end_duration");
    result.put("e2e_p50_ms", e2e.getOrDefault("p50", -1L));
    result.put("e2e_p99_ms", e2e.getOrDefault("p99", -1L));
    result.put("e2e_max_ms", e2e.getOrDefault("max", -1L));
    result.put("persisted_max_bytes", summary(stats, "persisted_data").getOrDefault("max", -1L));
    result.put("produced", produced);
    Bench.say(mode + ": " + result);
    return result;
  }

  private static long firstLong(Pattern pattern, String body) {
    Matcher m = pattern.matcher(body);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /** The statistics object of one field in the REST answer's summary: min, max, avg, p50, …. */
  private static Map<String, Long> summary(String body, String field) {
    Matcher object = Pattern.compile("\"" + field + "\"\\s*:\\s*\\{([^}]*)\\}").matcher(body);
    Map<String, Long> values = new LinkedHashMap<>();
    if (object.find()) {
      Matcher entry = Pattern.compile("\"(\\w+)\"\\s*:\\s*(-?[0-9.]+)").matcher(object.group(1));
      while (entry.find()) {
        values.put(entry.group(1), (long) Double.parseDouble(entry.group(2)));
      }
    }
    return values;
  }
}
