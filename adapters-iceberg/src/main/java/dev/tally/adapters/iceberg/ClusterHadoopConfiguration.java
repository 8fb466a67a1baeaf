package dev.tally.adapters.iceberg;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The Hadoop configuration Iceberg's SQL catalog factory gives the catalogs a script creates
 * ({@code CREATE CATALOG … WITH ('type' = 'iceberg', …)}), built by a class inside the job jar.
 *
 * <p>Why it exists: Iceberg's {@code FlinkCatalogFactory.clusterHadoopConf()} calls Flink's {@code
 * org.apache.flink.runtime.util.HadoopUtils}, which a Flink distribution ships in its own {@code
 * lib/} (flink-hadoop-fs inside flink-dist) and which is therefore loaded by the cluster's class
 * loader, never by the job's: {@code org.apache.flink.} is parent-first. Hadoop itself is in the
 * job jar only, which that parent loader cannot see, so on a cluster without Hadoop of its own
 * every Iceberg {@code CREATE CATALOG} failed with {@code NoClassDefFoundError:
 * org/apache/hadoop/conf/Configuration} (apache/iceberg#3117, #14793). The job jar's shading
 * redirects Iceberg's calls of {@code HadoopUtils.getHadoopConfiguration} here (a relocation of
 * that one class in runtime-flink's pom), so Hadoop is resolved where it is: in the job jar.
 *
 * <p>What it reads, the subset of Flink's lookup a catalog can need: Hadoop's defaults and any
 * {@code core-site.xml} on the class path, {@code core-site.xml} and {@code hdfs-site.xml} of the
 * directory {@code HADOOP_CONF_DIR} names, then every {@code flink.hadoop.<key>} of the Flink
 * configuration as {@code <key>}. A REST catalog with S3FileIO (Tally's default) uses none of it.
 */
public final class ClusterHadoopConfiguration {

  /** Flink configuration keys with this prefix are copied into Hadoop's, without it. */
  static final String FLINK_HADOOP_PREFIX = "flink.hadoop.";

  private ClusterHadoopConfiguration() {}

  /**
   * The Hadoop configuration for {@code flinkConfiguration}, from the process environment. Its name
   * and signature are those of Flink's {@code HadoopUtils.getHadoopConfiguration}, which the job
   * jar's relocation replaces with this class: keep them.
   */
  public static Configuration getHadoopConfiguration(
      org.apache.flink.configuration.Configuration flinkConfiguration) {
    return of(flinkConfiguration, System.getenv());
  }

  /** As {@link #getHadoopConfiguration}, with {@code environment} in place of the process's. */
  static Configuration of(
      org.apache.flink.configuration.Configuration flinkConfiguration,
      Map<String, String> environment) {
    Configuration hadoop = new Configuration();
    String confDir = environment.get("HADOOP_CONF_DIR");
    if (confDir != null && !confDir.isBlank()) {
      for (String file : new String[] {"core-site.xml", "hdfs-site.xml"}) {
        Path site = Path.of(confDir, file);
        if (Files.isRegularFile(site)) {
          hadoop.addResource(new org.apache.hadoop.fs.Path(site.toUri()));
        }
      }
    }
    flinkConfiguration
        .toMap()
        .forEach(
            (key, value) -> {
              if (key.startsWith(FLINK_HADOOP_PREFIX)) {
                hadoop.set(key.substring(FLINK_HADOOP_PREFIX.length()), value);
              }
            });
    return hadoop;
  }
}
