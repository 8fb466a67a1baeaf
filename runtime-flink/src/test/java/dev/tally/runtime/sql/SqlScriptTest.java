package dev.tally.runtime.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SqlScriptTest {

  private static final Map<String, String> ENV =
      Map.of("BROKERS", "kafka-1:9092,kafka-2:9092", "QUOTE", "it's", "EMPTY", "");

  private static List<SqlStatement> split(String text) {
    return SqlScript.parse("p.sql", text, ENV::get).statements();
  }

  @Test
  void splitsAtSemicolonsAndRemembersWhereEachStatementStarts() {
    List<SqlStatement> statements =
        split("SET 'a' = 'b';\n\nCREATE TABLE t (x INT);\n  INSERT INTO t\n  SELECT 1;");

    assertThat(statements)
        .containsExactly(
            new SqlStatement("SET 'a' = 'b'", 1, 1),
            new SqlStatement("CREATE TABLE t (x INT)", 3, 1),
            new SqlStatement("INSERT INTO t\n  SELECT 1", 4, 3));
  }

  @Test
  void twoStatementsOnOneLineHaveTheirOwnColumns() {
    assertThat(split("USE c;   USE d"))
        .containsExactly(new SqlStatement("USE c", 1, 1), new SqlStatement("USE d", 1, 10));
  }

  @Test
  void semicolonsInsideStringsQuotedIdentifiersAndCommentsDoNotEndAStatement() {
    List<SqlStatement> statements =
        split(
            "SELECT 'a;b', \"c;d\", `e;f` -- g;h\n"
                + "  /* i;\n j; */ FROM t;\n"
                + "SELECT 'it''s; fine'");

    assertThat(statements)
        .extracting(SqlStatement::sql)
        .containsExactly(
            "SELECT 'a;b', \"c;d\", `e;f` -- g;h\n  /* i;\n j; */ FROM t", "SELECT 'it''s; fine'");
    assertThat(statements.get(1).line()).isEqualTo(4);
  }

  @Test
  void commentsBeforeAStatementAreNotPartOfItAndCommentOnlyStatementsVanish() {
    List<SqlStatement> statements =
        split("-- header; with a semicolon\n/* block\n ; */\n\nSELECT 1;\n-- trailer\n;;");

    assertThat(statements).containsExactly(new SqlStatement("SELECT 1", 5, 1));
  }

  @Test
  void hintsStayInTheirStatement() {
    assertThat(split("SELECT * FROM t /*+ OPTIONS('scan.startup.mode'='earliest-offset') */;"))
        .extracting(SqlStatement::sql)
        .containsExactly("SELECT * FROM t /*+ OPTIONS('scan.startup.mode'='earliest-offset') */");
  }

  @Test
  void aLastStatementNeedsNoSemicolon() {
    assertThat(split("SELECT 1;\nSELECT 2\n\n"))
        .extracting(SqlStatement::sql)
        .containsExactly("SELECT 1", "SELECT 2");
  }

  @Test
  void variablesAreSubstitutedInLiteralsIdentifiersAndCode() {
    assertThat(split("'${BROKERS}' ${UNSET:-x} `${EMPTY}` '${UNSET2:-latest-offset}'"))
        .extracting(SqlStatement::sql)
        .containsExactly("'kafka-1:9092,kafka-2:9092' x `` 'latest-offset'");
  }

  @Test
  void aValueInsideALiteralHasItsQuotesDoubled() {
    assertThat(split("SELECT '${QUOTE}'"))
        .extracting(SqlStatement::sql)
        .containsExactly("SELECT 'it''s'");
  }

  @Test
  void anEmptyDefaultIsTheEmptyString() {
    assertThat(split("SELECT '${UNSET:-}'"))
        .extracting(SqlStatement::sql)
        .containsExactly("SELECT ''");
  }

  @Test
  void variablesInCommentsAreLeftAlone() {
    assertThat(split("-- ${NOT_SET}\nSELECT 1 /* ${NOT_SET_EITHER} */"))
        .extracting(SqlStatement::sql)
        .containsExactly("SELECT 1 /* ${NOT_SET_EITHER} */");
  }

  @Test
  void anUnsetVariableWithoutDefaultNamesTheVariableAndItsLine() {
    assertThatThrownBy(() -> split("SELECT 1;\n\nCREATE TABLE t WITH ('uri' = '${ICEBERG_URI}');"))
        .isInstanceOf(SqlScriptException.class)
        .hasMessage("p.sql:3:31: variable ICEBERG_URI is not set and ${ICEBERG_URI} has no default")
        .satisfies(e -> assertThat(((SqlScriptException) e).line()).isEqualTo(3));
  }

  @Test
  void aMalformedVariableIsAnError() {
    assertThatThrownBy(() -> split("SELECT\n '${not valid}'"))
        .hasMessageStartingWith("p.sql:2:3: ${not valid}: a variable is");
    assertThatThrownBy(() -> split("SELECT '${OPEN\n}'"))
        .hasMessage("p.sql:1:9: ${ is not closed by } on the same line");
  }

  @Test
  void anUnclosedLiteralOrCommentNamesWhereItOpened() {
    assertThatThrownBy(() -> split("SELECT 1;\nSELECT 'abc;\nSELECT 2;"))
        .hasMessage("p.sql:2:8: string literal opened with ' is never closed");
    assertThatThrownBy(() -> split("SELECT 1 /* never\n closed"))
        .hasMessage("p.sql:1:10: comment /* is never closed");
    assertThatThrownBy(() -> split("SELECT \"x"))
        .hasMessage("p.sql:1:8: quoted identifier opened with \" is never closed");
  }

  @Test
  void aPositionInsideAStatementMapsToTheScript() {
    SqlStatement statement = new SqlStatement("INSERT INTO t\nSELECT nope", 10, 5);

    assertThat(statement.scriptPosition(1, 3)).containsExactly(10, 7);
    assertThat(statement.scriptPosition(2, 8)).containsExactly(11, 8);
  }
}
