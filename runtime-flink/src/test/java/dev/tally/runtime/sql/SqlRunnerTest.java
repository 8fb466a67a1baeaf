package dev.tally.runtime.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The runner's validation pass with Flink's real parser and planner: problems are named by file,
 * line and Flink's message. (Runs against real services are in it-tests' SqlPipelineIT.)
 */
class SqlRunnerTest {

  private static final String TABLES =
      """
      -- A sink and a view in the session's in-memory catalog.
      CREATE TABLE sink (
        user_id STRING,
        total BIGINT
      ) WITH ('connector' = 'blackhole');

      CREATE VIEW spending AS
      SELECT * FROM (VALUES ('u1', CAST(5 AS BIGINT))) AS t(user_id, amount);
      """;

  private static final SqlRunner RUNNER = new SqlRunner(new Configuration());

  private static SqlScript script(String text) {
    return SqlScript.parse("pipeline.sql", text, Map.<String, String>of()::get);
  }

  @Test
  void aValidScriptValidates() {
    RUNNER.validate(
        script(
            TABLES
                + """
                SET 'pipeline.name' = 'x';
                BEGIN STATEMENT SET;
                INSERT INTO sink SELECT user_id, SUM(amount) FROM spending GROUP BY user_id;
                INSERT INTO sink SELECT user_id, amount FROM spending;
                END;
                """));
  }

  @Test
  void aSyntaxErrorIsReportedAtItsLineInTheFile() {
    SqlScriptException e =
        catchThrowableOfType(
            SqlScriptException.class,
            () ->
                RUNNER.validate(
                    script(
                        TABLES
                            + """

                            INSERT INTO sink
                            SELECT user_id, amount
                            FORM spending;
                            """)));

    // TABLES has 8 lines, a blank line, then the INSERT at 10; Flink stops at "spending" on 12.
    assertThat(e.line()).isEqualTo(12);
    assertThat(e.getMessage())
        .startsWith("pipeline.sql:12:6: ")
        .contains("SQL parse failed")
        .contains("in the statement at pipeline.sql:10: INSERT INTO sink");
  }

  @Test
  void aValidationErrorCarriesFlinksMessageAndLine() {
    SqlScriptException e =
        catchThrowableOfType(
            SqlScriptException.class,
            () ->
                RUNNER.validate(
                    script(
                        TABLES
                            + "INSERT INTO sink\n"
                            + "SELECT user_id, amount_cents FROM spending;\n")));

    assertThat(e.getMessage())
        .startsWith("pipeline.sql:10:17: ")
        .contains("Column 'amount_cents' not found")
        .contains("in the statement at pipeline.sql:9: INSERT INTO sink");
  }

  @Test
  void anUnknownTableIsReportedAtItsStatement() {
    assertThatThrownBy(() -> RUNNER.validate(script(TABLES + "\nINSERT INTO nope SELECT 'a', 1;")))
        .isInstanceOf(SqlScriptException.class)
        .hasMessageStartingWith("pipeline.sql:10:1: ")
        .hasMessageContaining("nope");
  }

  @Test
  void aSelectIsNotPartOfAPipelineScript() {
    assertThatThrownBy(() -> RUNNER.validate(script(TABLES + "SELECT * FROM spending;")))
        .hasMessageStartingWith("pipeline.sql:9:1: not supported in a pipeline script: SELECT");
  }

  @Test
  void setNeedsAKeyAndAValue() {
    assertThatThrownBy(() -> RUNNER.validate(script("SET;")))
        .hasMessage(
            "pipeline.sql:1:1: SET needs a key and a value in a script: SET 'key' = 'value'");
  }
}
