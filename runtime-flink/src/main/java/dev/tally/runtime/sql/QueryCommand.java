package dev.tally.runtime.sql;

import dev.tally.adapters.iceberg.CompletenessMarker;
import dev.tally.adapters.iceberg.IcebergSqlCatalog;
import dev.tally.runtime.cli.CommandLines;
import dev.tally.runtime.cli.ConfigArguments;
import dev.tally.runtime.cli.HelpOption;
import dev.tally.runtime.cli.Terminal;
import dev.tally.runtime.config.TallyConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ResultKind;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.config.TableConfigOptions;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.CatalogDescriptor;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.command.SetOperation;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code TallyMain query}: batch SQL over the Iceberg catalog Tally writes to, printed as aligned
 * text tables. The catalog, storage and credentials are those of Tally's configuration, and the
 * session starts in the output table's namespace, so {@code user_hourly_spending} needs no prefix.
 * The session's time zone is UTC: window boundaries print and compare as the UTC instants they are.
 * A result with a {@code window_end} column gets a {@code final} column saying whether that window
 * is final by the newest {@code tally.watermark} of the output table ({@link FinalWindows}).
 *
 * <pre>
 * java -cp "tally-job.jar:flink-lib/*" dev.tally.runtime.TallyMain query --config tally.yaml \
 *   "SELECT user_id, currency, total_spent_cents FROM user_hourly_spending ORDER BY 3 DESC LIMIT 10"
 * </pre>
 */
@Command(
    name = "query",
    description =
        "Runs batch SQL over the Iceberg catalog Tally writes to and prints each result as a"
            + " text table.")
public final class QueryCommand implements Callable<Integer> {

  @Spec private CommandSpec command;

  @Mixin private ConfigArguments configuration;

  @Option(
      names = "--file",
      paramLabel = "FILE",
      description =
          "Statements to run instead of SQL, e.g. SET, USE and several SELECTs;"
              + " $${NAME} in them comes from the environment.")
  private Path file;

  @Option(
      names = "--max-rows",
      paramLabel = "N",
      defaultValue = "1000",
      description = "Print at most N rows of a result (default: ${DEFAULT-VALUE}).")
  private int maxRows;

  @Parameters(
      arity = "0..1",
      paramLabel = "SQL",
      description = "The statements, as one argument; give either SQL or --file.")
  private String sql;

  @Mixin private HelpOption help;

  private final Terminal terminal;

  /** The command, to be added to {@code TallyMain}'s command line. */
  public QueryCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  /**
   * Runs the statements.
   *
   * @return the exit code: 0, {@link SqlCommand#SCRIPT_ERROR} or {@link CommandLines#USAGE_ERROR}
   */
  @Override
  public Integer call() throws Exception {
    if ((file == null) == (sql == null)) {
      throw new ParameterException(
          command.commandLine(), "give either --file or the SQL, not both or neither");
    }
    if (maxRows < 1) {
      throw new ParameterException(command.commandLine(), "--max-rows must be at least 1");
    }
    TallyConfig config = configuration.load(terminal.environment());
    SqlScript script;
    try {
      script =
          file != null
              ? SqlScript.parse(
                  file.toString(), SqlCommand.readScript(file), terminal.environment())
              : SqlScript.parse("query", sql, terminal.environment());
    } catch (IOException e) {
      terminal.err().println(file + ": cannot be read: " + e.getMessage());
      return CommandLines.USAGE_ERROR;
    } catch (SqlScriptException e) {
      terminal.err().println(e.getMessage());
      return SqlCommand.SCRIPT_ERROR;
    }
    try {
      TableEnvironment session = session(config);
      for (SqlStatement statement : script.statements()) {
        TableResult result = execute(session, script, statement);
        print(result, maxRows, () -> finalWindows(config), terminal.out());
      }
      return 0;
    } catch (SqlScriptException e) {
      terminal.err().println(e.getMessage());
      return SqlCommand.SCRIPT_ERROR;
    }
  }

  /** A batch session whose current catalog and database are those of Tally's output table. */
  static TableEnvironment session(TallyConfig config) {
    Configuration flink = new Configuration();
    flink.set(TableConfigOptions.LOCAL_TIME_ZONE, "UTC");
    if (config.job().parallelism() > 0) {
      flink.set(CoreOptions.DEFAULT_PARALLELISM, config.job().parallelism());
    }
    TableEnvironment session =
        TableEnvironment.create(
            EnvironmentSettings.newInstance().inBatchMode().withConfiguration(flink).build());
    String name = config.iceberg().catalog().name();
    session.createCatalog(
        name,
        CatalogDescriptor.of(
            name, Configuration.fromMap(IcebergSqlCatalog.options(config.iceberg()))));
    session.useCatalog(name);
    return session;
  }

  private static TableResult execute(
      TableEnvironment session, SqlScript script, SqlStatement statement) {
    TableEnvironmentInternal internal = (TableEnvironmentInternal) session;
    try {
      List<Operation> operations = internal.getParser().parse(statement.sql());
      if (operations.size() == 1 && operations.get(0) instanceof SetOperation set) {
        if (set.getKey().isPresent() && set.getValue().isPresent()) {
          session.getConfig().set(set.getKey().get(), set.getValue().get());
        }
        return null;
      }
      return internal.executeInternal(operations.get(0));
    } catch (RuntimeException e) {
      throw SqlRunner.located(script, statement, e);
    }
  }

  /** Read when a result needs it: the newest marker of the output table, at that moment. */
  private static FinalWindows finalWindows(TallyConfig config) {
    return new FinalWindows(CompletenessMarker.read(config.iceberg()), config.aggregation());
  }

  /**
   * Prints the result; one with a {@value FinalWindows#COLUMN} column gets a {@code final} column
   * and a line saying what it rests on.
   */
  private static void print(
      TableResult result, int maxRows, Supplier<FinalWindows> judge, PrintStream out)
      throws Exception {
    if (result == null || result.getResultKind() != ResultKind.SUCCESS_WITH_CONTENT) {
      out.println("OK");
      return;
    }
    List<String> columns = new ArrayList<>(result.getResolvedSchema().getColumnNames());
    int windowEnd = columns.indexOf(FinalWindows.COLUMN);
    FinalWindows finalWindows = windowEnd < 0 ? null : judge.get();
    if (finalWindows != null) {
      columns.add("final");
    }
    TextTable table = new TextTable(columns);
    boolean more = false;
    // Closing the iterator early cancels the rest of the query's job.
    CloseableIterator<Row> rows = result.collect();
    try {
      while (rows.hasNext()) {
        if (table.size() == maxRows) {
          more = true;
          break;
        }
        Row row = rows.next();
        List<Object> values = new ArrayList<>(row.getArity());
        for (int i = 0; i < row.getArity(); i++) {
          values.add(row.getField(i));
        }
        if (finalWindows != null) {
          values.add(
              row.getField(windowEnd) instanceof Instant end
                  ? (finalWindows.isFinal(end) ? "yes" : "no")
                  : null);
        }
        table.add(values);
      }
    } finally {
      rows.close();
    }
    out.print(table.render());
    out.println(
        more
            ? "(first " + maxRows + " rows; more not shown: add a LIMIT or --max-rows)"
            : "(" + table.size() + (table.size() == 1 ? " row)" : " rows)"));
    if (finalWindows != null) {
      out.println(finalWindows.describe());
    }
  }
}
