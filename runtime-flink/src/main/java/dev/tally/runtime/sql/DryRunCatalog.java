package dev.tally.runtime.sql;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.GenericInMemoryCatalog;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;

/**
 * A catalog for the validation pass: reads go to the real catalog, writes stay in memory.
 *
 * <p>The runner checks a whole script before anything runs, and a script's {@code INSERT} can only
 * be validated once the tables its earlier {@code CREATE} statements define exist. Executing those
 * statements against the real catalog would create tables and namespaces for a script that is then
 * rejected; this view lets the validation pass see them without the real catalog ever changing.
 * {@code CREATE DATABASE} and {@code CREATE TABLE} (and views) behave as the real catalog would,
 * failing on a name that already exists unless {@code IF NOT EXISTS}; other changes (drops, alters,
 * renames, functions, partitions, models) are skipped: they are checked by Flink's parser only.
 */
final class DryRunCatalog implements InvocationHandler {

  private final String name;
  private final Catalog real;
  private final GenericInMemoryCatalog created;

  private DryRunCatalog(String name, Catalog real) {
    this.name = name;
    this.real = real;
    this.created = new GenericInMemoryCatalog(name + "-dry-run", real.getDefaultDatabase());
    this.created.open();
  }

  /** A view of {@code real} (already open) whose changes stay in memory. */
  static Catalog over(String name, Catalog real) {
    return (Catalog)
        Proxy.newProxyInstance(
            DryRunCatalog.class.getClassLoader(),
            new Class<?>[] {Catalog.class},
            new DryRunCatalog(name, real));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    String method0 = method.getName();
    int arity = args == null ? 0 : args.length;
    switch (method0) {
      case "databaseExists":
        return databaseExists((String) args[0]);
      case "getDatabase":
        return created.databaseExists((String) args[0])
            ? created.getDatabase((String) args[0])
            : forward(method, args);
      case "listDatabases":
        return union(real.listDatabases(), created.listDatabases());
      case "createDatabase":
        createDatabase((String) args[0], (CatalogDatabase) args[1], (Boolean) args[2]);
        return null;
      case "tableExists":
        return created.tableExists((ObjectPath) args[0]) || real.tableExists((ObjectPath) args[0]);
      case "getTable":
        return created.tableExists((ObjectPath) args[0])
            ? created.getTable((ObjectPath) args[0])
            : forward(method, args);
      case "listTables", "listViews":
        {
          String database = (String) args[0];
          List<String> inMemory =
              created.databaseExists(database)
                  ? (method0.equals("listTables")
                      ? created.listTables(database)
                      : created.listViews(database))
                  : List.of();
          List<String> inReal =
              real.databaseExists(database) ? castList(forward(method, args)) : List.of();
          return union(inReal, inMemory);
        }
      case "createTable":
        createTable((ObjectPath) args[0], (CatalogBaseTable) args[1], (Boolean) args[2]);
        return null;
      case "open", "close":
        // The real catalog's life is the session's; the dry run neither opens nor closes it.
        return null;
      default:
        if (isChange(method0) && method.getReturnType() == void.class) {
          return null;
        }
        return arity == 0 && method0.equals("toString")
            ? "DryRunCatalog[" + name + "]"
            : forward(method, args);
    }
  }

  private static boolean isChange(String method) {
    return method.startsWith("create")
        || method.startsWith("drop")
        || method.startsWith("alter")
        || method.startsWith("rename");
  }

  private boolean databaseExists(String database) {
    return created.databaseExists(database) || real.databaseExists(database);
  }

  private void createDatabase(String database, CatalogDatabase definition, boolean ignoreIfExists)
      throws DatabaseAlreadyExistException {
    if (databaseExists(database)) {
      if (ignoreIfExists) {
        return;
      }
      throw new DatabaseAlreadyExistException(name, database);
    }
    created.createDatabase(database, definition, false);
  }

  private void createTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfExists)
      throws Exception {
    if (created.tableExists(path) || real.tableExists(path)) {
      if (ignoreIfExists) {
        return;
      }
      throw new TableAlreadyExistException(name, path);
    }
    if (!databaseExists(path.getDatabaseName())) {
      throw new DatabaseNotExistException(name, path.getDatabaseName());
    }
    // The database may exist only in the real catalog: mirror it, empty, to hold the table.
    created.createDatabase(
        path.getDatabaseName(), new CatalogDatabaseImpl(java.util.Map.of(), null), true);
    created.createTable(path, table, false);
  }

  private Object forward(Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(real, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @SuppressWarnings("unchecked")
  private static List<String> castList(Object list) {
    return (List<String>) list;
  }

  private static List<String> union(List<String> a, List<String> b) {
    Set<String> all = new LinkedHashSet<>(a);
    all.addAll(b);
    return new ArrayList<>(all);
  }
}
