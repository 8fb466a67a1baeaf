package dev.tally.runtime.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A Flink SQL script split into statements, with {@code ${VAR}} and {@code ${VAR:-default}}
 * substituted from the environment.
 *
 * <p>Statements end at a semicolon outside string literals ({@code '…'} with {@code ''} for a
 * quote), quoted identifiers ({@code "…"}, {@code `…`}) and comments ({@code -- …} to the end of
 * the line, {@code /* … *&#47;}, hints {@code /*+ … *&#47;} included); a last statement may omit
 * it. Each statement remembers the line and column where it starts, so a problem Flink reports
 * inside a statement can be named by its place in the file.
 *
 * <p>Variables are substituted everywhere except in comments (a commented-out line never needs its
 * variables set). A value is inserted verbatim, except inside a string literal, where its quotes
 * are doubled so the literal stays one literal. An unset variable without a default is an error
 * naming it and its line; {@code ${VAR:-}} substitutes the empty string.
 */
public final class SqlScript {

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final String name;
  private final List<SqlStatement> statements;

  private SqlScript(String name, List<SqlStatement> statements) {
    this.name = name;
    this.statements = List.copyOf(statements);
  }

  /**
   * Splits and substitutes {@code text}.
   *
   * @param name the script's name in messages, usually its path as given
   * @param text the script
   * @param environment variable look-up, usually {@code System::getenv}; {@code null} for unset
   * @throws SqlScriptException for an unset variable, a malformed {@code ${…}}, or a string, quoted
   *     identifier or comment that never ends
   */
  public static SqlScript parse(String name, String text, Function<String, String> environment) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(environment, "environment");
    return new Splitter(name, text, environment).split();
  }

  /** The script's name, as given. */
  public String name() {
    return name;
  }

  /** The statements in order; empty statements ({@code ;;}, comments only) are left out. */
  public List<SqlStatement> statements() {
    return statements;
  }

  /** One pass over the text: a small state machine over characters. */
  private static final class Splitter {
    private final String name;
    private final String text;
    private final Function<String, String> environment;
    private final List<SqlStatement> statements = new ArrayList<>();
    private final StringBuilder current = new StringBuilder();
    private int pos;
    private int line = 1;
    private int column = 1;
    private int startLine;
    private int startColumn;

    Splitter(String name, String text, Function<String, String> environment) {
      this.name = name;
      this.text = text;
      this.environment = environment;
    }

    SqlScript split() {
      while (pos < text.length()) {
        char c = text.charAt(pos);
        if (c == ';') {
          advance();
          endStatement();
        } else if (c == '-' && peek(1) == '-') {
          lineComment();
        } else if (c == '/' && peek(1) == '*') {
          blockComment();
        } else if (c == '\'' || c == '"' || c == '`') {
          quoted(c);
        } else if (c == '$' && peek(1) == '{') {
          markStart();
          current.append(variable());
        } else {
          if (!Character.isWhitespace(c)) {
            markStart();
          }
          if (!current.isEmpty() || !Character.isWhitespace(c)) {
            current.append(c);
          }
          advance();
        }
      }
      endStatement();
      return new SqlScript(name, statements);
    }

    private void markStart() {
      if (current.isEmpty()) {
        startLine = line;
        startColumn = column;
      }
    }

    private void endStatement() {
      String sql = current.toString().stripTrailing();
      if (!sql.isEmpty() && startLine > 0) {
        statements.add(new SqlStatement(sql, startLine, startColumn));
      }
      current.setLength(0);
      startLine = 0;
    }

    /** {@code -- …} up to (not including) the line break; kept only inside a statement. */
    private void lineComment() {
      while (pos < text.length() && text.charAt(pos) != '\n') {
        appendIfInStatement(text.charAt(pos));
        advance();
      }
    }

    private void blockComment() {
      int openLine = line;
      int openColumn = column;
      appendIfInStatement('/');
      advance();
      appendIfInStatement('*');
      advance();
      while (pos < text.length()) {
        char c = text.charAt(pos);
        if (c == '*' && peek(1) == '/') {
          appendIfInStatement('*');
          advance();
          appendIfInStatement('/');
          advance();
          return;
        }
        appendIfInStatement(c);
        advance();
      }
      throw new SqlScriptException(name, openLine, openColumn, "comment /* is never closed");
    }

    private void appendIfInStatement(char c) {
      if (!current.isEmpty()) {
        current.append(c);
      }
    }

    /** A string literal or quoted identifier; a doubled quote character is an escaped one. */
    private void quoted(char quote) {
      markStart();
      int openLine = line;
      int openColumn = column;
      current.append(quote);
      advance();
      while (pos < text.length()) {
        char c = text.charAt(pos);
        if (c == quote) {
          current.append(c);
          advance();
          if (pos < text.length() && text.charAt(pos) == quote) {
            current.append(quote);
            advance();
            continue;
          }
          return;
        }
        if (c == '$' && peek(1) == '{') {
          String value = variable();
          // Inside a literal a value's own quotes must not end it.
          current.append(value.replace(String.valueOf(quote), String.valueOf(quote) + quote));
          continue;
        }
        current.append(c);
        advance();
      }
      String what =
          switch (quote) {
            case '\'' -> "string literal";
            default -> "quoted identifier";
          };
      throw new SqlScriptException(
          name, openLine, openColumn, what + " opened with " + quote + " is never closed");
    }

    /** {@code ${NAME}} or {@code ${NAME:-default}} at {@code pos}; returns its value. */
    private String variable() {
      int varLine = line;
      int varColumn = column;
      int close = text.indexOf('}', pos + 2);
      int lineEnd = text.indexOf('\n', pos);
      if (close < 0 || (lineEnd >= 0 && lineEnd < close)) {
        throw new SqlScriptException(
            name, varLine, varColumn, "${ is not closed by } on the same line");
      }
      String body = text.substring(pos + 2, close);
      int dash = body.indexOf(":-");
      String variable = dash < 0 ? body : body.substring(0, dash);
      if (!NAME.matcher(variable).matches()) {
        throw new SqlScriptException(
            name,
            varLine,
            varColumn,
            "${"
                + body
                + "}: a variable is ${NAME} or ${NAME:-default}, NAME letters, digits and _");
      }
      String value = environment.apply(variable);
      if (value == null) {
        if (dash < 0) {
          throw new SqlScriptException(
              name,
              varLine,
              varColumn,
              "variable " + variable + " is not set and ${" + variable + "} has no default");
        }
        value = body.substring(dash + 2);
      }
      while (pos <= close) {
        advance();
      }
      return value;
    }

    private char peek(int ahead) {
      int at = pos + ahead;
      return at < text.length() ? text.charAt(at) : '\0';
    }

    private void advance() {
      if (text.charAt(pos) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
      pos++;
    }
  }
}
