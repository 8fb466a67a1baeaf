package dev.tally.bench;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/**
 * The compare run's one table and one chart: per leg its throughput (events/s of the preloaded
 * run), freshness (window end → final row readable, p50 and p99) and recovery (loss → processing
 * again, p50 and max), each with its check, and Tally's ratio to every other leg on each figure. A
 * ratio is given only where both legs were measured and right, and is always "how many times better
 * Tally is": events/s Tally / other, latencies other / Tally.
 */
final class CompareTable {

  /**
   * One leg's three figures.
   *
   * @param throughput the preloaded run's result (skipped or failed legs included)
   */
  record Row(String leg, LegResult throughput, LatencyFigure freshness, LatencyFigure recovery) {}

  private final Map<String, String> machine;
  private final Map<String, Object> run;
  private final List<Row> rows;

  CompareTable(Map<String, String> machine, Map<String, Object> run, List<Row> rows) {
    this.machine = machine;
    this.run = run;
    this.rows = List.copyOf(rows);
  }

  private Optional<Row> row(String leg) {
    return rows.stream().filter(r -> r.leg().equals(leg)).findFirst();
  }

  /** Tally's events/s over {@code other}'s, both {@code ok}. */
  Optional<Double> throughputRatio(String other) {
    return ratio(other, r -> r.throughput().status().equals("ok"), true, r -> eps(r.throughput()));
  }

  /** {@code other}'s freshness p99 over Tally's, both {@code ok}. */
  Optional<Double> freshnessRatio(String other) {
    return ratio(other, r -> ok(r.freshness()), false, r -> r.freshness().p99Millis());
  }

  /** {@code other}'s recovery p50 over Tally's, both {@code ok}. */
  Optional<Double> recoveryRatio(String other) {
    return ratio(other, r -> ok(r.recovery()), false, r -> r.recovery().p50Millis());
  }

  private Optional<Double> ratio(
      String other,
      java.util.function.Predicate<Row> right,
      boolean higherIsBetter,
      ToDoubleFunction<Row> figure) {
    Optional<Row> tally = row("tally").filter(right);
    Optional<Row> them = row(other).filter(right);
    if (tally.isEmpty() || them.isEmpty()) {
      return Optional.empty();
    }
    double t = figure.applyAsDouble(tally.get());
    double o = figure.applyAsDouble(them.get());
    double numerator = higherIsBetter ? t : o;
    double denominator = higherIsBetter ? o : t;
    return denominator > 0 ? Optional.of(numerator / denominator) : Optional.empty();
  }

  /** Whether Tally is ahead of {@code other} on all three figures (all measured and right). */
  boolean tallyAheadOnAll(String other) {
    return throughputRatio(other).filter(r -> r > 1).isPresent()
        && freshnessRatio(other).filter(r -> r > 1).isPresent()
        && recoveryRatio(other).filter(r -> r > 1).isPresent();
  }

  private static boolean ok(LatencyFigure f) {
    return f.status().equals("ok");
  }

  private static double eps(LegResult r) {
    return r.measured() ? r.eventsPerSecond() : 0;
  }

  void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("compare.json"), json(), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("compare.md"), markdown(), StandardCharsets.UTF_8);
    ImageIO.write(chart(), "png", dir.resolve("compare.png").toFile());
  }

  String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("| leg | events/s | check | freshness p50 s | p99 s | check | recovery p50 s |")
        .append(" max s | check |\n")
        .append("|---|---:|---|---:|---:|---|---:|---:|---|\n");
    for (Row r : rows) {
      LegResult t = r.throughput();
      out.append(
          Report.fmt(
              "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
              r.leg(),
              t.measured() ? Report.fmt("%,.0f", t.eventsPerSecond()) : "–",
              t.status(),
              seconds(r.freshness(), r.freshness().p50Millis()),
              seconds(r.freshness(), r.freshness().p99Millis()),
              r.freshness().status(),
              seconds(r.recovery(), r.recovery().p50Millis()),
              seconds(r.recovery(), r.recovery().maxMillis()),
              r.recovery().status()));
    }
    out.append('\n');
    for (Row r : rows) {
      if (r.leg().equals("tally")) {
        continue;
      }
      out.append(
          Report.fmt(
              "Tally / %s: throughput %s, freshness (p99) %s, recovery (p50) %s%s\n",
              r.leg(),
              times(throughputRatio(r.leg())),
              times(freshnessRatio(r.leg())),
              times(recoveryRatio(r.leg())),
              tallyAheadOnAll(r.leg()) ? "; Tally ahead on all three" : ""));
    }
    out.append('\n');
    for (Row r : rows) {
      out.append("- ").append(r.leg()).append(": throughput: ").append(r.throughput().note());
      out.append("; freshness: ").append(r.freshness().note());
      out.append("; recovery: ").append(r.recovery().note()).append('\n');
    }
    out.append("\nrun: ").append(run).append("\n\nmachine: ").append(machine).append('\n');
    return out.toString();
  }

  String json() {
    StringBuilder out = new StringBuilder("{\n  \"machine\": {");
    appendMap(out, machine);
    out.append("},\n  \"run\": {");
    appendMap(out, run);
    out.append("},\n  \"legs\": [");
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      LegResult t = r.throughput();
      out.append(i == 0 ? "\n" : ",\n")
          .append("    {\"name\": ")
          .append(Report.quote(r.leg()))
          .append(", \"throughput\": {\"status\": ")
          .append(Report.quote(t.status()))
          .append(
              t.measured()
                  ? Report.fmt(
                      ", \"events_per_second\": %.0f, \"records\": %d, \"processing_seconds\": %.3f",
                      t.eventsPerSecond(), t.records(), t.processingSeconds())
                  : "")
          .append(", \"note\": ")
          .append(Report.quote(t.note()))
          .append("}, \"freshness\": ")
          .append(figure(r.freshness()))
          .append(", \"recovery\": ")
          .append(figure(r.recovery()))
          .append('}');
    }
    out.append("\n  ],\n  \"tally_over\": {");
    boolean first = true;
    for (Row r : rows) {
      if (r.leg().equals("tally")) {
        continue;
      }
      out.append(first ? "" : ", ")
          .append(Report.quote(r.leg()))
          .append(": {\"throughput\": ")
          .append(number(throughputRatio(r.leg())))
          .append(", \"freshness_p99\": ")
          .append(number(freshnessRatio(r.leg())))
          .append(", \"recovery_p50\": ")
          .append(number(recoveryRatio(r.leg())))
          .append(", \"ahead_on_all\": ")
          .append(tallyAheadOnAll(r.leg()))
          .append('}');
      first = false;
    }
    return out.append("}\n}\n").toString();
  }

  private static String figure(LatencyFigure f) {
    return Report.fmt(
        "{\"status\": %s, \"p50_ms\": %d, \"p99_ms\": %d, \"max_ms\": %d, \"samples\": %d,"
            + " \"note\": %s}",
        Report.quote(f.status()),
        f.p50Millis(),
        f.p99Millis(),
        f.maxMillis(),
        f.samples(),
        Report.quote(f.note()));
  }

  private static String seconds(LatencyFigure f, long millis) {
    return f.measured() ? Report.fmt("%.2f", millis / 1e3) : "–";
  }

  private static String times(Optional<Double> ratio) {
    return ratio.map(r -> Report.fmt("%.2f×", r)).orElse("n/a");
  }

  private static String number(Optional<Double> ratio) {
    return ratio.map(r -> Report.fmt("%.3f", r)).orElse("null");
  }

  private static void appendMap(StringBuilder out, Map<String, ?> map) {
    boolean first = true;
    for (Map.Entry<String, ?> e : map.entrySet()) {
      out.append(first ? "" : ", ").append(Report.quote(e.getKey())).append(": ");
      Object v = e.getValue();
      out.append(v instanceof Number ? v.toString() : Report.quote(String.valueOf(v)));
      first = false;
    }
  }

  /** Three panels side by side, one bar per leg each: events/s, freshness p99, recovery p50. */
  private BufferedImage chart() {
    int panel = 360;
    int width = panel * 3;
    int height = 120 + rows.size() * 50;
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, width, height);
    panel(
        g,
        0,
        panel,
        "Events/s (higher is better)",
        r -> r.throughput().measured(),
        r -> r.throughput().status(),
        r -> eps(r.throughput()),
        "%,.0f");
    panel(
        g,
        panel,
        panel,
        "Freshness p99, s (lower is better)",
        r -> r.freshness().measured(),
        r -> r.freshness().status(),
        r -> r.freshness().p99Millis() / 1e3,
        "%.1f s");
    panel(
        g,
        2 * panel,
        panel,
        "Recovery p50, s (lower is better)",
        r -> r.recovery().measured(),
        r -> r.recovery().status(),
        r -> r.recovery().p50Millis() / 1e3,
        "%.1f s");
    g.dispose();
    return image;
  }

  private void panel(
      Graphics2D g,
      int x,
      int width,
      String title,
      java.util.function.Predicate<Row> measured,
      java.util.function.Function<Row, String> status,
      ToDoubleFunction<Row> value,
      String format) {
    Color[] colors = {
      new Color(0x4e79a7), new Color(0xf28e2b), new Color(0x59a14f), new Color(0xe15759)
    };
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
    g.drawString(title, x + 10, 28);
    double max = rows.stream().filter(measured).mapToDouble(value).max().orElse(1);
    int left = x + 80;
    int area = width - 80 - 90;
    int y = 50;
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      g.setColor(Color.BLACK);
      g.drawString(r.leg(), x + 10, y + 20);
      if (measured.test(r)) {
        double v = value.applyAsDouble(r);
        int w = max > 0 ? (int) Math.round(area * v / max) : 0;
        g.setColor(colors[i % colors.length]);
        g.fillRect(left, y, Math.max(1, w), 30);
        g.setColor(Color.BLACK);
        String label = Report.fmt(format, v);
        g.drawString(
            status.apply(r).equals("ok") ? label : label + " (WRONG)", left + w + 4, y + 20);
      } else {
        g.setColor(Color.GRAY);
        g.drawString(status.apply(r), left + 4, y + 20);
      }
      y += 50;
    }
  }
}
