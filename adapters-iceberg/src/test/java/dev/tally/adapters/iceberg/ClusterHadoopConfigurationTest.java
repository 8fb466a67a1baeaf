package dev.tally.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterHadoopConfigurationTest {

  @Test
  void copiesFlinkHadoopKeysWithoutTheirPrefixAndNothingElse() {
    org.apache.flink.configuration.Configuration flink =
        new org.apache.flink.configuration.Configuration();
    flink.setString("flink.hadoop.fs.s3a.endpoint", "http://store:9000");
    flink.setString("state.backend.type", "rocksdb");

    Configuration hadoop = ClusterHadoopConfiguration.of(flink, Map.of());

    assertThat(hadoop.get("fs.s3a.endpoint")).isEqualTo("http://store:9000");
    assertThat(hadoop.get("state.backend.type")).isNull();
    assertThat(hadoop.get("flink.hadoop.fs.s3a.endpoint")).isNull();
  }

  @Test
  void readsTheSiteFilesOfHadoopConfDirUnderTheFlinkKeys(@TempDir Path dir) throws IOException {
    Files.writeString(dir.resolve("core-site.xml"), site("tally.test.core", "from-core-site"));
    Files.writeString(dir.resolve("hdfs-site.xml"), site("dfs.replication", "7"));
    org.apache.flink.configuration.Configuration flink =
        new org.apache.flink.configuration.Configuration();
    flink.setString("flink.hadoop.dfs.replication", "2");

    Configuration hadoop =
        ClusterHadoopConfiguration.of(flink, Map.of("HADOOP_CONF_DIR", dir.toString()));

    assertThat(hadoop.get("tally.test.core")).isEqualTo("from-core-site");
    // A flink.hadoop. key is the more specific setting: it wins over the site file.
    assertThat(hadoop.get("dfs.replication")).isEqualTo("2");
  }

  @Test
  void aMissingHadoopConfDirLeavesHadoopsDefaults(@TempDir Path dir) {
    Configuration hadoop =
        ClusterHadoopConfiguration.of(
            new org.apache.flink.configuration.Configuration(),
            Map.of("HADOOP_CONF_DIR", dir.resolve("absent").toString()));

    // core-default.xml, from Hadoop's own jar.
    assertThat(hadoop.get("fs.defaultFS")).isEqualTo("file:///");
  }

  private static String site(String name, String value) {
    return """
        <?xml version="1.0"?>
        <configuration>
          <property><name>%s</name><value>%s</value></property>
        </configuration>
        """
        .formatted(name, value);
  }
}
