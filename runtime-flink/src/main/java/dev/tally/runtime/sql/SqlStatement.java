package dev.tally.runtime.sql;

import java.util.Objects;

/**
 * One statement of a SQL script, variables substituted, without its terminating semicolon.
 *
 * @param sql the statement's text, from its first significant character (comments before it are not
 *     part of it; comments inside it are kept, so Flink's positions stay true)
 * @param line the 1-based line of the script where the statement starts
 * @param column the 1-based column of that line where the statement starts
 */
public record SqlStatement(String sql, int line, int column) {

  public SqlStatement {
    Objects.requireNonNull(sql, "sql");
  }

  /**
   * Where a position Flink reports inside this statement (its own line and column, both 1-based) is
   * in the script.
   */
  public int[] scriptPosition(int statementLine, int statementColumn) {
    int line = this.line + statementLine - 1;
    int column = statementLine == 1 ? this.column + statementColumn - 1 : statementColumn;
    return new int[] {line, column};
  }

  /** The statement's first line, shortened: enough to recognise it in a message. */
  public String summary() {
    String first = sql.lines().findFirst().orElse("").strip();
    return first.length() > 80 ? first.substring(0, 77) + "..." : first;
  }
}
