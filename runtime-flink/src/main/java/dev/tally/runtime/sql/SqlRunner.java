package dev.tally.runtime.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.operations.BeginStatementSetOperation;
import org.apache.flink.table.operations.EndStatementSetOperation;
import org.apache.flink.table.operations.ExplainOperation;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.operations.StatementSetOperation;
import org.apache.flink.table.operations.command.SetOperation;
import org.apache.flink.table.operations.ddl.CreateCatalogOperation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a Flink SQL script as one streaming job: {@code SET}, DDL and {@code USE} statements in
 * order, then every {@code INSERT INTO} together as one statement set.
 *
 * <p>Nothing runs before the whole script is known to be good. {@link #validate} parses and
 * validates every statement in order against a dry-run session, in which catalogs created by the
 * script are read for real but changed only in memory ({@link DryRunCatalog}); a bad statement
 * anywhere, an {@code INSERT} into a column that does not exist included, fails with its place in
 * the file and Flink's message while no catalog, table or job has been touched. {@link #run} then
 * executes the DDL for real, plans each {@code INSERT} (sink translation included, so an error that
 * only the planner sees is still reported at its line), and only then submits the statement set.
 *
 * <p>A script's {@code SET 'key' = 'value'} overrides the configuration the runner was given (the
 * same precedence as Flink's SQL client). {@code BEGIN STATEMENT SET;} and {@code END;} are
 * accepted and change nothing: all of a script's inserts always form one statement set. Queries
 * ({@code SELECT}, {@code EXPLAIN}) are rejected: in a pipeline script they would be jobs of their
 * own; use the query command to look at data.
 */
public final class SqlRunner {

  private static final Logger LOG = LoggerFactory.getLogger(SqlRunner.class);

  /**
   * Table options the runner sets before a script runs; a script's {@code SET} may override them.
   *
   * <ul>
   *   <li>{@code table.exec.iceberg.use-v2-sink}: Iceberg's SQL sink defaults to its legacy {@code
   *       FlinkSink}, which can lose data with unaligned checkpoints (Tally's default policy) and
   *       moves its commit messages through Kryo; the Sink V2 {@code IcebergSink} that Tally's Java
   *       pipeline uses has neither problem.
   *   <li>{@code execution.checkpointing.unaligned.interruptible-timers.enabled} off, whatever
   *       {@code checkpoints.interruptible-timers} says: every SQL operator opts into interruptible
   *       timers, and in Flink 2.1 a firing interrupted at the end of a bounded input is never
   *       resumed (FLINK-39481, fixed on Flink's 2.2 and later branches): the task finishes with
   *       the final watermark's timers unfired, and the last windows' rows are lost without an
   *       error. Measured by {@code SqlEndOfInputIT}: 38,681 of 211,005 rows lost with it on, none
   *       with it off. Unaligned checkpoints stay on (the narrowest setting that is exact); the
   *       cost is that a barrier waits until a window end has emitted all its rows.
   * </ul>
   */
  public static final Map<String, String> TABLE_DEFAULTS =
      Map.of(
          "table.exec.iceberg.use-v2-sink",
          "true",
          CheckpointingOptions.ENABLE_UNALIGNED_INTERRUPTIBLE_TIMERS.key(),
          "false");

  private static final Pattern POSITION = Pattern.compile("(?:at|From) line (\\d+), column (\\d+)");

  private final Configuration configuration;

  /**
   * @param configuration Flink options for the job: Tally's state backend, checkpoint policy,
   *     restart strategy and job settings
   */
  public SqlRunner(Configuration configuration) {
    this.configuration = new Configuration(Objects.requireNonNull(configuration, "configuration"));
  }

  /**
   * Parses and validates every statement in order; changes nothing anywhere.
   *
   * @throws SqlScriptException at the first bad statement, with its place and Flink's message
   */
  public void validate(SqlScript script) {
    TableEnvironment session = TableEnvironment.create(settings());
    TableEnvironmentInternal internal = (TableEnvironmentInternal) session;
    applyDefaults(session);
    for (SqlStatement statement : script.statements()) {
      Operation operation = parse(internal, script, statement);
      try {
        if (operation instanceof CreateCatalogOperation create) {
          createDryRunCatalog(internal, create);
        } else if (!(operation instanceof ModifyOperation)) {
          apply(internal, operation);
        }
      } catch (RuntimeException e) {
        throw located(script, statement, e);
      }
    }
  }

  /**
   * Validates the script, executes its statements, plans its inserts and submits them as one job on
   * {@code env}.
   *
   * @return the submitted statement set's result (its job client), or empty when the script has no
   *     {@code INSERT}
   * @throws SqlScriptException at the first bad statement; then no job has been submitted
   */
  public Optional<TableResult> run(SqlScript script, StreamExecutionEnvironment env) {
    validate(script);
    StreamTableEnvironment session = StreamTableEnvironment.create(env, settings());
    TableEnvironmentInternal internal = (TableEnvironmentInternal) session;
    applyDefaults(session);
    Map<ModifyOperation, SqlStatement> inserts = new LinkedHashMap<>();
    for (SqlStatement statement : script.statements()) {
      Operation operation = parse(internal, script, statement);
      if (operation instanceof ModifyOperation insert) {
        inserts.put(insert, statement);
        continue;
      }
      // The operation's kind only: a statement's text or summary may carry a catalog's secrets.
      LOG.info("{}:{}: {}", script.name(), statement.line(), operation.getClass().getSimpleName());
      try {
        apply(internal, operation);
      } catch (RuntimeException e) {
        throw located(script, statement, e);
      }
    }
    if (inserts.isEmpty()) {
      return Optional.empty();
    }
    // Plan each insert alone first, so that a failure names its statement.
    inserts.forEach(
        (insert, statement) -> {
          try {
            internal.explainInternal(List.of(insert));
          } catch (RuntimeException e) {
            throw located(script, statement, e);
          }
        });
    LOG.info(
        "{}: submitting {} INSERT statements (lines {}) as one statement set",
        script.name(),
        inserts.size(),
        inserts.values().stream().map(s -> Integer.toString(s.line())).toList());
    return Optional.of(internal.executeInternal(new ArrayList<>(inserts.keySet())));
  }

  private EnvironmentSettings settings() {
    return EnvironmentSettings.newInstance()
        .inStreamingMode()
        .withConfiguration(configuration)
        .build();
  }

  private void applyDefaults(TableEnvironment session) {
    TABLE_DEFAULTS.forEach((key, value) -> session.getConfig().set(key, value));
  }

  private static Operation parse(
      TableEnvironmentInternal session, SqlScript script, SqlStatement statement) {
    List<Operation> operations;
    try {
      operations = session.getParser().parse(statement.sql());
    } catch (RuntimeException e) {
      throw located(script, statement, e);
    }
    if (operations.size() != 1) {
      throw new SqlScriptException(
          script.name(),
          statement.line(),
          statement.column(),
          "expected one statement, Flink's parser found " + operations.size());
    }
    Operation operation = operations.get(0);
    if (operation instanceof QueryOperation
        || operation instanceof ExplainOperation
        || operation instanceof StatementSetOperation) {
      throw new SqlScriptException(
          script.name(),
          statement.line(),
          statement.column(),
          "not supported in a pipeline script: "
              + statement.summary()
              + " (a script runs SET, DDL, USE and INSERT INTO; its inserts always form one"
              + " statement set; use the query command to run a SELECT)");
    }
    if (operation instanceof SetOperation set
        && (set.getKey().isEmpty() || set.getValue().isEmpty())) {
      throw new SqlScriptException(
          script.name(),
          statement.line(),
          statement.column(),
          "SET needs a key and a value in a script: SET 'key' = 'value'");
    }
    return operation;
  }

  private static void apply(TableEnvironmentInternal session, Operation operation) {
    if (operation instanceof SetOperation set) {
      session.getConfig().set(set.getKey().orElseThrow(), set.getValue().orElseThrow());
    } else if (!(operation instanceof BeginStatementSetOperation
        || operation instanceof EndStatementSetOperation)) {
      session.executeInternal(operation);
    }
  }

  /**
   * Creates the catalog with its factory, as Flink would, and registers a dry-run view of it: later
   * statements read the real catalog's databases and tables but change nothing in it.
   */
  // registerCatalog is deprecated in favour of catalog descriptors, which name a factory; only it
  // registers a catalog instance, and the dry-run view is one.
  @SuppressWarnings("deprecation")
  private static void createDryRunCatalog(
      TableEnvironmentInternal session, CreateCatalogOperation create) {
    CatalogManager catalogs = session.getCatalogManager();
    String name = create.getCatalogName();
    if (catalogs.getCatalog(name).isPresent()) {
      if (create.isIgnoreIfExists()) {
        return;
      }
      throw new ValidationException("Catalog " + name + " already exists.");
    }
    Catalog real =
        FactoryUtil.createCatalog(
            name, create.getProperties(), session.getConfig(), SqlRunner.class.getClassLoader());
    real.open();
    catalogs.registerCatalog(name, DryRunCatalog.over(name, real));
  }

  /** {@code e} as a script problem at the statement, or at Flink's position inside it. */
  static SqlScriptException located(SqlScript script, SqlStatement statement, Throwable e) {
    if (e instanceof SqlScriptException located) {
      return located;
    }
    String message = messages(e);
    Matcher position = POSITION.matcher(message);
    int line = statement.line();
    int column = statement.column();
    if (position.find()) {
      int[] at =
          statement.scriptPosition(
              Integer.parseInt(position.group(1)), Integer.parseInt(position.group(2)));
      line = at[0];
      column = at[1];
    }
    String where =
        line == statement.line()
            ? ""
            : "\n  in the statement at " + script.name() + ":" + statement.line() + ": ";
    SqlScriptException problem =
        new SqlScriptException(
            script.name(),
            line,
            column,
            message + (where.isEmpty() ? "" : where + statement.summary()));
    problem.initCause(e);
    return problem;
  }

  /** Flink's message with the messages of its causes that add something, most general first. */
  private static String messages(Throwable e) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      String message = t.getMessage();
      if (message == null || message.isBlank() || all.indexOf(message.strip()) >= 0) {
        continue;
      }
      if (!all.isEmpty()) {
        all.append("\n  caused by: ");
      }
      all.append(message.strip());
    }
    return all.isEmpty() ? e.getClass().getName() : all.toString();
  }
}
