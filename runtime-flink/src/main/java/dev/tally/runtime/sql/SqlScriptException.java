package dev.tally.runtime.sql;

/**
 * A script problem at a known place: {@code file:line:column: message}, the form compilers and
 * editors understand.
 */
public final class SqlScriptException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String file;
  private final int line;
  private final int column;

  /**
   * @param file the script's name as the user gave it
   * @param line 1-based line in the script
   * @param column 1-based column, or 0 when only the line is known
   * @param message what is wrong, Flink's own message where Flink found it
   */
  public SqlScriptException(String file, int line, int column, String message) {
    super(location(file, line, column) + ": " + message);
    this.file = file;
    this.line = line;
    this.column = column;
  }

  private static String location(String file, int line, int column) {
    return column > 0 ? file + ":" + line + ":" + column : file + ":" + line;
  }

  /** The script's name. */
  public String file() {
    return file;
  }

  /** The 1-based line in the script. */
  public int line() {
    return line;
  }

  /** The 1-based column, or 0 when unknown. */
  public int column() {
    return column;
  }
}
