package dev.tally.adapters.iceberg;

/** Which kind of Iceberg catalog tracks the output table. */
public enum CatalogType {
  /**
   * A Hadoop catalog on the local filesystem: metadata under {@code warehouse}, no server. The
   * embedded default, for the demo and tests; it does not support concurrent writers from several
   * hosts.
   */
  HADOOP,
  /** An Iceberg REST catalog (the reference server, Polaris, Nessie, Gravitino, …). */
  REST,
  /** Iceberg's JDBC catalog on a relational database; its JDBC driver must be on the classpath. */
  JDBC
}
