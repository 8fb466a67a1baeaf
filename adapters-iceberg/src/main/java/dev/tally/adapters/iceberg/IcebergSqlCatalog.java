package dev.tally.adapters.iceberg;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options of a Flink SQL {@code CREATE CATALOG … WITH (…)} for the catalog Tally writes to, so
 * that SQL sessions (the query command) see exactly the tables the job writes, through the same
 * catalog, storage and credentials.
 */
public final class IcebergSqlCatalog {

  private IcebergSqlCatalog() {}

  /**
   * The catalog's Flink SQL options: {@code type = iceberg}, its kind, every Iceberg catalog
   * property Tally's sink uses, and the output table's namespace as the default database. Secrets
   * (a REST token or credential, a JDBC password) are included: never log the result.
   */
  public static Map<String, String> options(IcebergSinkConfig options) {
    Map<String, String> sql = new LinkedHashMap<>();
    sql.put("type", "iceberg");
    switch (options.catalog().type()) {
      case HADOOP -> sql.put("catalog-type", "hadoop");
      case REST -> sql.put("catalog-type", "rest");
      case JDBC -> sql.put("catalog-impl", IcebergCatalogs.JDBC_CATALOG_IMPL);
    }
    sql.put("default-database", options.namespace());
    sql.putAll(IcebergCatalogs.properties(options));
    return sql;
  }
}
