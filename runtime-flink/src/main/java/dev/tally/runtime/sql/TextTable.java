package dev.tally.runtime.sql;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Rows as an aligned text table for a terminal: a header, a rule, one line per row; numbers right,
 * everything else left. Numbers are printed exactly as they are (no grouping), so a value can be
 * copied into the next query.
 */
public final class TextTable {

  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  private final List<String> header;
  private final List<String[]> cells = new ArrayList<>();
  private final boolean[] numeric;

  /** A table with these column names. */
  public TextTable(List<String> header) {
    this.header = List.copyOf(header);
    this.numeric = new boolean[header.size()];
    java.util.Arrays.fill(numeric, true);
  }

  /** Adds a row of {@code header().size()} values; {@code null} prints as {@code NULL}. */
  public void add(List<?> values) {
    if (values.size() != header.size()) {
      throw new IllegalArgumentException(
          "a row of " + values.size() + " values for " + header.size() + " columns");
    }
    String[] row = new String[values.size()];
    for (int i = 0; i < row.length; i++) {
      Object value = values.get(i);
      row[i] = format(value);
      if (value != null && !(value instanceof Number)) {
        numeric[i] = false;
      }
    }
    cells.add(row);
  }

  /** The number of rows added. */
  public int size() {
    return cells.size();
  }

  /** The table, every line ending with a line break. */
  public String render() {
    int[] width = new int[header.size()];
    for (int i = 0; i < width.length; i++) {
      width[i] = header.get(i).length();
    }
    for (String[] row : cells) {
      for (int i = 0; i < row.length; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    line(out, header.toArray(String[]::new), width);
    String[] rule = new String[width.length];
    for (int i = 0; i < width.length; i++) {
      rule[i] = "-".repeat(width[i]);
    }
    line(out, rule, width);
    for (String[] row : cells) {
      line(out, row, width);
    }
    return out.toString();
  }

  private void line(StringBuilder out, String[] row, int[] width) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < row.length; i++) {
      if (i > 0) {
        line.append("  ");
      }
      String pad = " ".repeat(width[i] - row[i].length());
      line.append(numeric[i] ? pad + row[i] : row[i] + pad);
    }
    out.append(line.toString().stripTrailing()).append('\n');
  }

  /** A value as a person reads it: timestamps without the ISO {@code T}, instants in UTC. */
  static String format(Object value) {
    if (value == null) {
      return "NULL";
    }
    if (value instanceof LocalDateTime time) {
      return timestamp(time);
    }
    if (value instanceof Instant instant) {
      return timestamp(LocalDateTime.ofInstant(instant, ZoneOffset.UTC)) + "Z";
    }
    if (value instanceof OffsetDateTime time) {
      return format(time.toInstant());
    }
    return Objects.toString(value);
  }

  /** Seconds always; a fraction only when there is one, in groups of three digits. */
  private static String timestamp(LocalDateTime time) {
    String text = TIMESTAMP.format(time);
    if (time.getNano() == 0) {
      return text;
    }
    String fraction = String.format("%09d", time.getNano());
    while (fraction.endsWith("000")) {
      fraction = fraction.substring(0, fraction.length() - 3);
    }
    return text + "." + fraction;
  }
}
