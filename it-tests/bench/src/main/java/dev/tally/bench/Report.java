package dev.tally.bench;

import java.awt.BasicStroke;
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
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.imageio.ImageIO;

/** Writes a throughput run's figures as JSON, a Markdown table and a PNG bar chart. */
final class Report {

  private final Map<String, String> machine;
  private final Map<String, Object> workload;
  private final List<LegResult> legs;

  Report(Map<String, String> machine, Map<String, Object> workload, List<LegResult> legs) {
    this.machine = machine;
    this.workload = workload;
    this.legs = legs;
  }

  Optional<LegResult> leg(String name) {
    return legs.stream().filter(l -> l.name().equals(name) && l.measured()).findFirst();
  }

  /** {@code numerator}'s events/s over {@code denominator}'s, when both were measured. */
  Optional<Double> ratio(String numerator, String denominator) {
    return leg(numerator)
        .flatMap(n -> leg(denominator).map(d -> n.eventsPerSecond() / d.eventsPerSecond()));
  }

  void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("throughput.json"), json(), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("throughput.md"), markdown(), StandardCharsets.UTF_8);
    ImageIO.write(chart(), "png", dir.resolve("throughput.png").toFile());
  }

  String json() {
    StringBuilder out = new StringBuilder("{\n  \"machine\": {");
    appendMap(out, machine);
    out.append("},\n  \"workload\": {");
    appendMap(out, workload);
    out.append("},\n  \"legs\": [");
    for (int i = 0; i < legs.size(); i++) {
      LegResult l = legs.get(i);
      out.append(i == 0 ? "\n" : ",\n")
          .append("    {\"name\": ")
          .append(quote(l.name()))
          .append(", \"status\": ")
          .append(quote(l.status()))
          .append(", \"note\": ")
          .append(quote(l.note()));
      if (l.measured()) {
        out.append(
            String.format(
                Locale.ROOT,
                ", \"records\": %d, \"processing_seconds\": %.3f, \"events_per_second\": %.0f,"
                    + " \"cpu_microseconds_per_event\": %.2f,"
                    + " \"cpu_seconds\": %.2f, \"cpu_seconds_per_million\": %.2f,"
                    + " \"process_wall_seconds\": %.3f, \"peak_rss_mib\": %.0f,"
                    + " \"iceberg_commits\": %d, \"iceberg_data_files\": %d,"
                    + " \"iceberg_delete_files\": %d",
                l.records(),
                l.processingSeconds(),
                l.eventsPerSecond(),
                l.cpuMicrosecondsPerEvent(),
                l.cpuSeconds(),
                l.cpuSecondsPerMillion(),
                l.processWallSeconds(),
                l.peakRssMib(),
                l.icebergCommits(),
                l.icebergDataFiles(),
                l.icebergDeleteFiles()));
      }
      out.append('}');
    }
    out.append("\n  ],\n  \"ratios\": {");
    out.append("\"tally_over_ceiling\": ")
        .append(ratio("tally", "ceiling").map(r -> fmt("%.3f", r)).orElse("null"))
        .append(", \"tally_over_sql\": ")
        .append(ratio("tally", "sql").map(r -> fmt("%.3f", r)).orElse("null"))
        .append(", \"tally_over_sql_same\": ")
        .append(ratio("tally", "sql-same").map(r -> fmt("%.3f", r)).orElse("null"))
        .append("}\n}\n");
    return out.toString();
  }

  String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("| leg | status | events/s | CPU µs per event | peak RSS MiB | processing s |")
        .append(" process wall s | Iceberg commits | data files | delete files |\n")
        .append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (LegResult l : legs) {
      if (l.measured()) {
        out.append(
            fmt(
                "| %s | %s | %,.0f | %.1f | %,.0f | %.1f | %.1f | %s | %s | %s |\n",
                l.name(),
                l.status(),
                l.eventsPerSecond(),
                l.cpuMicrosecondsPerEvent(),
                l.peakRssMib(),
                l.processingSeconds(),
                l.processWallSeconds(),
                orDash(l.icebergCommits()),
                orDash(l.icebergDataFiles()),
                orDash(l.icebergDeleteFiles())));
      } else {
        out.append(fmt("| %s | %s | – | – | – | – | – | – | – | – |\n", l.name(), l.status()));
      }
    }
    out.append('\n');
    out.append("Tally / ceiling: ")
        .append(ratio("tally", "ceiling").map(r -> fmt("%.2f", r)).orElse("n/a"))
        .append("; Tally / SQL: ")
        .append(ratio("tally", "sql").map(r -> fmt("%.2f", r)).orElse("n/a"))
        .append("; Tally / SQL same semantics: ")
        .append(ratio("tally", "sql-same").map(r -> fmt("%.2f", r)).orElse("n/a"))
        .append("\n\n");
    for (LegResult l : legs) {
      out.append("- ").append(l.name()).append(": ").append(l.note()).append('\n');
    }
    return out.toString();
  }

  private BufferedImage chart() {
    int width = 800;
    int height = 400;
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, width, height);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.drawString(
        fmt(
            "Events/s, %,d events, parallelism %s",
            ((Number) workload.get("events")).longValue(), workload.get("parallelism")),
        20,
        28);
    double max =
        legs.stream()
            .filter(LegResult::measured)
            .mapToDouble(LegResult::eventsPerSecond)
            .max()
            .orElse(1);
    int left = 110;
    int barArea = width - left - 140;
    int y = 60;
    int barHeight = Math.min(60, (height - 80) / Math.max(1, legs.size()) - 20);
    Color[] colors = {new Color(0x4e79a7), new Color(0xf28e2b), new Color(0x59a14f)};
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
    for (int i = 0; i < legs.size(); i++) {
      LegResult l = legs.get(i);
      g.setColor(Color.BLACK);
      g.drawString(l.name(), 20, y + barHeight / 2 + 5);
      if (l.measured()) {
        int w = (int) Math.round(barArea * l.eventsPerSecond() / max);
        g.setColor(colors[i % colors.length]);
        g.fillRect(left, y, Math.max(1, w), barHeight);
        g.setColor(Color.BLACK);
        g.drawString(
            fmt("%,.0f/s%s", l.eventsPerSecond(), l.status().equals("ok") ? "" : " (WRONG)"),
            left + w + 8,
            y + barHeight / 2 + 5);
      } else {
        g.setColor(Color.GRAY);
        g.setStroke(new BasicStroke(1));
        g.drawRect(left, y, barArea / 4, barHeight);
        g.drawString(l.status(), left + 8, y + barHeight / 2 + 5);
      }
      y += barHeight + 20;
    }
    g.dispose();
    return image;
  }

  private static String orDash(long value) {
    return value < 0 ? "–" : fmt("%,d", value);
  }

  private static void appendMap(StringBuilder out, Map<String, ?> map) {
    boolean first = true;
    for (Map.Entry<String, ?> e : map.entrySet()) {
      out.append(first ? "" : ", ").append(quote(e.getKey())).append(": ");
      Object v = e.getValue();
      out.append(v instanceof Number ? v.toString() : quote(String.valueOf(v)));
      first = false;
    }
  }

  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
  }

  static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
