package dev.tally.runtime.sql;

import dev.tally.adapters.iceberg.IcebergSqlCatalog;
import dev.tally.runtime.config.ConfigurationException;
import dev.tally.runtime.config.TallyConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
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

/**
 * {@code TallyMain query}: batch SQL over the Iceberg catalog Tally writes to, printed as aligned
 * text tables. The catalog, storage and credentials are those of Tally's configuration, and the
 * session starts in the output table's namespace, so {@code user_hourly_spending} needs no prefix.
 * The session's time zone is UTC: window boundaries print and compare as the UTC instants they are.
 *
 * <pre>
 * java -cp "tally-job.jar:flink-lib/*" dev.tally.runtime.TallyMain query --config tally.yaml \
 *   "SELECT user_id, currency, total_spent_cents FROM user_hourly_spending ORDER BY 3 DESC LIMIT 10"
 * </pre>
 */
public final class QueryCommand {

  static final int DEFAULT_MAX_ROWS = 1_000;

  static final String USAGE =
      """
      Usage: TallyMain query [--config tally.yaml] [--set key=value]... [--max-rows N] (--file FILE | "SQL")

        --config FILE    Tally's configuration: the query reads the catalog of its iceberg.* keys
        --set KEY=VALUE  override one Tally key (repeatable)
        --file FILE      statements to run, e.g. SET, USE and SELECT; ${VAR} from the environment
        --max-rows N     print at most N rows of a result (default 1000)
        SQL              the statements, as one argument
      """;

  private QueryCommand() {}

  record Arguments(Path config, List<String> overrides, Path file, String sql, int maxRows) {

    static Arguments parse(String[] args) {
      Path config = null;
      Path file = null;
      String sql = null;
      List<String> overrides = new ArrayList<>();
      int maxRows = DEFAULT_MAX_ROWS;
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        switch (arg) {
          case "--config" -> config = Path.of(SqlCommand.value(args, ++i, arg));
          case "--set" -> overrides.add(SqlCommand.value(args, ++i, arg));
          case "--file" -> file = Path.of(SqlCommand.value(args, ++i, arg));
          case "--max-rows" -> maxRows = Integer.parseInt(SqlCommand.value(args, ++i, arg));
          default -> {
            if (arg.startsWith("--") || sql != null) {
              throw new IllegalArgumentException("unknown argument: " + arg);
            }
            sql = arg;
          }
        }
      }
      if ((file == null) == (sql == null)) {
        throw new IllegalArgumentException("give either --file or the SQL, not both or neither");
      }
      if (maxRows < 1) {
        throw new IllegalArgumentException("--max-rows must be at least 1");
      }
      return new Arguments(config, overrides, file, sql, maxRows);
    }
  }

  /**
   * Runs the command.
   *
   * @return the exit code: 0, {@link SqlCommand#SCRIPT_ERROR} or {@link SqlCommand#USAGE_ERROR}
   */
  public static int run(
      String[] args, Function<String, String> environment, PrintStream out, PrintStream err)
      throws Exception {
    if (List.of(args).contains("--help")) {
      out.println(USAGE);
      return 0;
    }
    Arguments arguments;
    TallyConfig config;
    try {
      arguments = Arguments.parse(args);
      config = SqlCommand.loadConfig(arguments.config(), arguments.overrides(), environment);
    } catch (IllegalArgumentException | ConfigurationException e) {
      err.println(e.getMessage());
      err.println();
      err.println(USAGE);
      return SqlCommand.USAGE_ERROR;
    }
    SqlScript script;
    try {
      script =
          arguments.file() != null
              ? SqlScript.parse(
                  arguments.file().toString(), SqlCommand.readScript(arguments.file()), environment)
              : SqlScript.parse("query", arguments.sql(), environment);
    } catch (IOException e) {
      err.println(arguments.file() + ": cannot be read: " + e.getMessage());
      return SqlCommand.USAGE_ERROR;
    } catch (SqlScriptException e) {
      err.println(e.getMessage());
      return SqlCommand.SCRIPT_ERROR;
    }
    try {
      TableEnvironment session = session(config);
      for (SqlStatement statement : script.statements()) {
        TableResult result = execute(session, script, statement);
        print(result, arguments.maxRows(), out);
      }
      return 0;
    } catch (SqlScriptException e) {
      err.println(e.getMessage());
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

  private static void print(TableResult result, int maxRows, PrintStream out) throws Exception {
    if (result == null || result.getResultKind() != ResultKind.SUCCESS_WITH_CONTENT) {
      out.println("OK");
      return;
    }
    TextTable table = new TextTable(result.getResolvedSchema().getColumnNames());
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
  }
}
