package dev.tally.bench;

import dev.tally.stack.FlinkRestClient;
import dev.tally.stack.LocalStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

/**
 * {@code ./bench.sh scale}: Tally's cost curve over events and users. Each cell of the grid is a
 * throughput run of its own (a fresh stack, the seed's topic preloaded with the cell's events and
 * users, the other workload options as given), the ceiling leg (for the CPU ratio) and the Tally
 * leg, each checked exact against the generator as the throughput run checks them. Per cell:
 * events/s, CPU per event, peak RSS, the checkpoints' sizes (Flink's REST API) and the state per
 * million remembered ids. A cell's stack, its Kafka log and object store included, is deleted after
 * the cell; its legs' logs stay.
 */
final class Scale {

  /** The default grid: the three points and 5M events of 1M users between them. */
  static final String DEFAULT_CELLS = "1Mx10k,5Mx100k,5Mx1M,20Mx1M";

  /** The cell whose events/s the others are compared with: the default throughput run's. */
  static final Cell REFERENCE = new Cell(5_000_000, 100_000);

  private static final Pattern CELL = Pattern.compile("([0-9_]+)([kKmM]?)x([0-9_]+)([kKmM]?)");

  private final BenchOptions o;
  private final List<Cell> cells;
  private final boolean ceiling;
  private final Path out;
  private final Path work;

  Scale(BenchOptions options, List<Cell> cells, boolean ceiling, Path out, Path work) {
    this.o = options;
    this.cells = cells;
    this.ceiling = ceiling;
    this.out = out;
    this.work = work;
  }

  /**
   * One point of the grid.
   *
   * @param events events preloaded
   * @param users distinct users they are drawn from
   */
  record Cell(long events, int users) {

    Cell {
      if (events < 1 || users < 1) {
        throw new IllegalArgumentException("a cell needs at least one event and one user");
      }
    }

    /**
     * Parses {@code <events>x<users>}, each a count with an optional {@code k} (thousand) or {@code
     * M} (million) and underscores: {@code 20Mx1M}, {@code 5_000_000x100k}.
     */
    static Cell parse(String text) {
      Matcher m = CELL.matcher(text.trim());
      if (!m.matches()) {
        throw new IllegalArgumentException(
            "a cell is <events>x<users>, e.g. 20Mx1M or 5000000x100k, not '" + text + "'");
      }
      long events = count(m.group(1), m.group(2));
      long users = count(m.group(3), m.group(4));
      if (users > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("too many users in '" + text + "'");
      }
      return new Cell(events, (int) users);
    }

    private static long count(String digits, String unit) {
      long n = Long.parseLong(digits.replace("_", ""));
      long factor =
          switch (unit) {
            case "k", "K" -> 1_000L;
            case "m", "M" -> 1_000_000L;
            default -> 1L;
          };
      return Math.multiplyExact(n, factor);
    }

    /** {@code 20Mx1M}, {@code 1Mx10k}: the shortest form that {@link #parse} reads back. */
    String label() {
      return shortCount(events) + "x" + shortCount(users);
    }

    private static String shortCount(long n) {
      if (n % 1_000_000 == 0) {
        return n / 1_000_000 + "M";
      }
      if (n % 1_000 == 0) {
        return n / 1_000 + "k";
      }
      return Long.toString(n);
    }
  }

  /** The cells of {@code --cells}, in the order given; a cell named twice is refused. */
  static List<Cell> cells(List<String> texts) {
    List<Cell> cells = new ArrayList<>();
    Set<Cell> seen = new HashSet<>();
    for (String text : texts) {
      Cell cell = Cell.parse(text);
      if (!seen.add(cell)) {
        throw new IllegalArgumentException("cell " + cell.label() + " is named twice");
      }
      cells.add(cell);
    }
    if (cells.isEmpty()) {
      throw new IllegalArgumentException("--cells names no cell");
    }
    return cells;
  }

  /**
   * The state of the checkpoint with the largest state whose count of remembered ids is known.
   *
   * @param checkpointId its id
   * @param stateBytes its full state size (every file it refers to, not only those it uploaded)
   * @param ids the records its sources had passed, on this workload the ids its dedupe state holds
   */
  record StatePerIds(long checkpointId, long stateBytes, long ids) {

    /** State bytes per million ids. */
    double bytesPerMillionIds() {
      return ids > 0 ? stateBytes * 1e6 / ids : 0;
    }

    /**
     * The checkpoint of {@code checkpoints} with the largest state among those whose records are
     * counted in {@code recordsAt} (by checkpoint id), or none. The last checkpoints of a bounded
     * run come after the final watermark has fired every window and dropped every id, so the
     * largest state, not the last, is the one that holds the run's ids.
     */
    static Optional<StatePerIds> of(
        List<FlinkRestClient.Checkpoint> checkpoints, Map<Long, Long> recordsAt) {
      return checkpoints.stream()
          .filter(c -> recordsAt.getOrDefault(c.id(), 0L) > 0)
          .max(Comparator.comparingLong(FlinkRestClient.Checkpoint::stateSize))
          .map(c -> new StatePerIds(c.id(), c.stateSize(), recordsAt.get(c.id())));
    }
  }

  /**
   * One cell's figures.
   *
   * @param ceiling the ceiling leg, or {@code null} when not run
   * @param state the largest counted checkpoint's state, if any
   */
  record CellResult(
      Cell cell,
      double preloadSeconds,
      LegResult tally,
      LegResult ceiling,
      CheckpointWatch.Figures checkpoints,
      Optional<StatePerIds> state,
      String checkpointLines) {

    /** Tally's CPU per event over the ceiling's, when both were measured. */
    Optional<Double> cpuRatio() {
      return ceiling != null && ceiling.measured() && tally.measured()
          ? Optional.of(tally.cpuSecondsPerMillion() / ceiling.cpuSecondsPerMillion())
          : Optional.empty();
    }
  }

  void run() throws Exception {
    List<CellResult> results = new ArrayList<>();
    for (Cell cell : cells) {
      Path dir = Files.createDirectories(work.resolve(cell.label()));
      Bench.say("Cell " + cell.label() + ": starting the local stack under " + dir);
      try (LocalStack stack = LocalStack.start(dir.resolve("stack"))) {
        results.add(runCell(cell, stack, dir));
      } finally {
        deleteTree(dir.resolve("stack"));
      }
      write(results);
    }
    System.out.println();
    System.out.println(markdown(results));
    Bench.say("Written " + out.resolve("scale.json") + " and .md; logs under " + work);
  }

  private CellResult runCell(Cell cell, LocalStack stack, Path dir) throws Exception {
    Bench.Preloaded preloaded = Bench.preload(o, stack, dir, cell.events(), cell.users());
    BenchContext context = preloaded.context();
    LegResult ceilingResult = null;
    if (ceiling) {
      Bench.say("Cell " + cell.label() + ", leg ceiling: running…");
      ceilingResult = runGuarded(new CeilingLeg(), context, JobWatch.NONE);
      Bench.say(Bench.describe(ceilingResult));
    }
    Bench.say("Cell " + cell.label() + ", leg tally: running…");
    try (CommittedRecords committed =
        new CommittedRecords(
            stack.kafka().bootstrapServers(), JobRuns.groupId(TallyLeg.TABLE), context.topic())) {
      CheckpointWatch watch = new CheckpointWatch(o.timeLimit, committed);
      LegResult tally = runGuarded(new TallyLeg(), context, watch);
      if (watch.stopped() && tally.measured()) {
        tally =
            new LegResult(
                    tally.name(),
                    "unfinished",
                    tally.note(),
                    tally.records(),
                    tally.processingSeconds(),
                    tally.processWallSeconds(),
                    tally.cpuSeconds(),
                    tally.peakRssMib(),
                    tally.icebergCommits(),
                    tally.icebergDataFiles(),
                    tally.icebergDeleteFiles())
                .withNote("stopped at --time-limit; " + tally.note());
      }
      Bench.say(Bench.describe(tally));
      List<FlinkRestClient.Checkpoint> checkpoints = watch.checkpoints();
      CellResult result =
          new CellResult(
              cell,
              preloaded.seconds(),
              tally,
              ceilingResult,
              CheckpointWatch.Figures.of(checkpoints),
              StatePerIds.of(checkpoints, watch.recordsAtCheckpoints()),
              CheckpointWatch.Figures.lines(checkpoints));
      Files.writeString(
          dir.resolve("checkpoints.md"),
          "Checkpoints of the tally leg, and the records its source had committed at each"
              + " (by checkpoint id): "
              + watch.recordsAtCheckpoints()
              + "\n\n"
              + result.checkpointLines());
      return result;
    }
  }

  private static LegResult runGuarded(Leg leg, BenchContext context, JobWatch watch) {
    try {
      return leg instanceof TallyLeg tally ? tally.run(context, watch) : leg.run(context);
    } catch (Exception e) {
      return LegResult.failed(leg.name(), e.toString());
    }
  }

  private void write(List<CellResult> results) throws IOException {
    Files.createDirectories(out);
    String json = json(results);
    String markdown = markdown(results);
    Files.writeString(out.resolve("scale.json"), json, StandardCharsets.UTF_8);
    Files.writeString(out.resolve("scale.md"), markdown, StandardCharsets.UTF_8);
    Files.writeString(work.resolve("scale.json"), json, StandardCharsets.UTF_8);
    Files.writeString(work.resolve("scale.md"), markdown, StandardCharsets.UTF_8);
  }

  /** Events/s of {@code r} over the reference cell's, when both were measured. */
  static Optional<Double> overReference(CellResult r, List<CellResult> all) {
    return all.stream()
        .filter(c -> c.cell().equals(REFERENCE) && c.tally().measured())
        .findFirst()
        .filter(ref -> r.tally().measured())
        .map(ref -> r.tally().eventsPerSecond() / ref.tally().eventsPerSecond());
  }

  String json(List<CellResult> results) {
    StringBuilder s = new StringBuilder("{\n  \"machine\": {");
    boolean first = true;
    for (Map.Entry<String, String> e : Bench.machine().entrySet()) {
      s.append(first ? "" : ", ")
          .append(Report.quote(e.getKey()))
          .append(": ")
          .append(Report.quote(e.getValue()));
      first = false;
    }
    s.append(
        Report.fmt(
            "},\n  \"workload\": {\"partitions\": %d, \"zipf_exponent\": %s, \"seed\": %d,"
                + " \"event_time_hours\": %d, \"parallelism\": %d,"
                + " \"checkpoint_interval_seconds\": %d},\n  \"cells\": [",
            o.partitions,
            o.zipf,
            o.seed,
            o.hours,
            o.parallelism,
            o.checkpointInterval.toSeconds()));
    for (int i = 0; i < results.size(); i++) {
      CellResult r = results.get(i);
      LegResult t = r.tally();
      CheckpointWatch.Figures c = r.checkpoints();
      s.append(i == 0 ? "\n" : ",\n")
          .append(
              Report.fmt(
                  "    {\"cell\": %s, \"events\": %d, \"users\": %d, \"preload_seconds\": %.1f,"
                      + " \"status\": %s, \"note\": %s, \"events_per_second\": %.0f,"
                      + " \"processing_seconds\": %.1f, \"cpu_seconds_per_million\": %.2f,"
                      + " \"peak_rss_mib\": %.0f, \"iceberg_commits\": %d, \"checkpoints\": %d,"
                      + " \"last_checkpointed_bytes\": %d, \"max_checkpointed_bytes\": %d,"
                      + " \"last_state_bytes\": %d, \"max_state_bytes\": %d",
                  Report.quote(r.cell().label()),
                  r.cell().events(),
                  r.cell().users(),
                  r.preloadSeconds(),
                  Report.quote(t.status()),
                  Report.quote(t.note()),
                  t.eventsPerSecond(),
                  t.processingSeconds(),
                  t.cpuSecondsPerMillion(),
                  t.peakRssMib(),
                  t.icebergCommits(),
                  c.checkpoints(),
                  c.lastCheckpointedBytes(),
                  c.maxCheckpointedBytes(),
                  c.lastStateBytes(),
                  c.maxStateBytes()));
      r.state()
          .ifPresent(
              p ->
                  s.append(
                      Report.fmt(
                          ", \"state_checkpoint\": %d, \"state_bytes\": %d, \"state_ids\": %d,"
                              + " \"state_bytes_per_million_ids\": %.0f",
                          p.checkpointId(), p.stateBytes(), p.ids(), p.bytesPerMillionIds())));
      if (r.ceiling() != null) {
        s.append(
            Report.fmt(
                ", \"ceiling_status\": %s, \"ceiling_events_per_second\": %.0f,"
                    + " \"ceiling_cpu_seconds_per_million\": %.2f",
                Report.quote(r.ceiling().status()),
                r.ceiling().eventsPerSecond(),
                r.ceiling().cpuSecondsPerMillion()));
      }
      overReference(r, results)
          .ifPresent(x -> s.append(Report.fmt(", \"events_per_second_over_5Mx100k\": %.3f", x)));
      s.append('}');
    }
    return s.append("\n  ]\n}\n").toString();
  }

  static String markdown(List<CellResult> results) {
    StringBuilder s =
        new StringBuilder(
            "| cell | status | events/s | ÷ 5Mx100k | CPU-s per M | ceiling CPU-s per M | CPU ×"
                + " ceiling | peak RSS MiB | checkpoints | last / largest uploaded MiB |"
                + " largest state MiB | ids at it | state MiB per M ids |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (CellResult r : results) {
      LegResult t = r.tally();
      CheckpointWatch.Figures c = r.checkpoints();
      s.append(
          Report.fmt(
              "| %s | %s | %s | %s | %s | %s | %s | %s | %d | %s / %s | %s | %s | %s |\n",
              r.cell().label(),
              t.status(),
              t.measured() ? Report.fmt("%,.0f", t.eventsPerSecond()) : "–",
              overReference(r, results).map(x -> Report.fmt("%.2f", x)).orElse("–"),
              t.measured() ? Report.fmt("%.1f", t.cpuSecondsPerMillion()) : "–",
              r.ceiling() != null && r.ceiling().measured()
                  ? Report.fmt("%.1f", r.ceiling().cpuSecondsPerMillion())
                  : "–",
              r.cpuRatio().map(x -> Report.fmt("%.1f", x)).orElse("–"),
              t.measured() ? Report.fmt("%,.0f", t.peakRssMib()) : "–",
              c.checkpoints(),
              mib(c.lastCheckpointedBytes()),
              mib(c.maxCheckpointedBytes()),
              mib(c.maxStateBytes()),
              r.state().map(p -> Report.fmt("%,d", p.ids())).orElse("–"),
              r.state()
                  .map(p -> Report.fmt("%.1f", p.bytesPerMillionIds() / 1048576))
                  .orElse("–")));
    }
    s.append('\n');
    for (CellResult r : results) {
      s.append("- ").append(r.cell().label()).append(": tally ").append(r.tally().note());
      if (r.ceiling() != null) {
        s.append("; ceiling ")
            .append(r.ceiling().status())
            .append(Report.fmt(", %,.0f events/s, ", r.ceiling().eventsPerSecond()))
            .append(r.ceiling().note());
      }
      s.append('\n');
    }
    return s.toString();
  }

  private static String mib(long bytes) {
    return bytes < 0 ? "–" : Report.fmt("%.1f", bytes / 1048576.0);
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }

  /**
   * The records a consumer group has committed on a topic: the sum of its committed offsets (the
   * topic starts at offset 0), -1 while it has none or the broker does not answer.
   */
  static final class CommittedRecords implements LongSupplier, AutoCloseable {
    private final Admin admin;
    private final String group;
    private final String topic;

    CommittedRecords(String bootstrap, String group, String topic) {
      Properties props = new Properties();
      props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      this.admin = Admin.create(props);
      this.group = group;
      this.topic = topic;
    }

    @Override
    public long getAsLong() {
      try {
        Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets =
            admin
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(5, TimeUnit.SECONDS);
        long sum = 0;
        boolean any = false;
        for (Map.Entry<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> e :
            offsets.entrySet()) {
          if (e.getKey().topic().equals(topic) && e.getValue() != null) {
            sum += e.getValue().offset();
            any = true;
          }
        }
        return any ? sum : -1;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return -1;
      } catch (ExecutionException | TimeoutException | RuntimeException e) {
        return -1;
      }
    }

    @Override
    public void close() {
      admin.close();
    }
  }
}
