package dev.tally.it.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The job jar users hand to {@code flink run}: Tally and its connectors, never Flink, tests or the
 * local stack.
 */
class JobJarIT {

  private static Path jar;
  private static List<String> entries;
  private static String mainClass;

  @BeforeAll
  static void readJar() throws Exception {
    jar = Path.of(System.getProperty("tally.job.jar"));
    assertThat(jar).as("built by runtime-flink's package phase").isRegularFile();
    try (JarFile file = new JarFile(jar.toFile())) {
      entries = file.stream().map(ZipEntry::getName).toList();
      mainClass = file.getManifest().getMainAttributes().getValue("Main-Class");
    }
    assertThat(Files.size(jar)).isGreaterThan(1_000_000);
  }

  @Test
  void itStartsTallyMain() {
    assertThat(mainClass).isEqualTo("dev.tally.runtime.TallyMain");
    assertThat(entries)
        .contains(
            "dev/tally/runtime/TallyMain.class",
            "dev/tally/domain/transaction/Transaction.class",
            // its command-line parser: no Flink distribution has it
            "picocli/CommandLine.class");
  }

  @Test
  void itCarriesTheConnectorsTheJobNeeds() {
    assertThat(entries)
        .contains(
            "org/apache/flink/connector/kafka/source/KafkaSource.class",
            "org/apache/iceberg/flink/sink/IcebergSink.class",
            "org/apache/iceberg/aws/s3/S3FileIO.class",
            "dev/tally/shaded/snakeyaml/engine/v2/api/Load.class");
  }

  @Test
  void itCarriesTheSqlRunnerAndTheSqlConnectorsButNotFlinksPlanner() {
    assertThat(entries)
        .contains(
            "dev/tally/runtime/sql/SqlRunner.class",
            "dev/tally/runtime/sql/QueryCommand.class",
            // 'connector' = 'kafka' and CREATE CATALOG … ('type' = 'iceberg'), found as services
            "org/apache/flink/streaming/connectors/kafka/table/KafkaDynamicTableFactory.class",
            "org/apache/iceberg/flink/FlinkCatalogFactory.class",
            "META-INF/services/org.apache.flink.table.factories.Factory");
    // The Table API, the planner and the JSON format come from the cluster's lib/: a second copy
    // in the job jar would register their factories twice.
    assertThat(entries)
        .noneMatch(e -> e.startsWith("org/apache/flink/table/planner/"))
        .noneMatch(
            e ->
                e.equals("org/apache/flink/table/api/TableEnvironment.class")
                    || e.startsWith("org/apache/flink/table/api/bridge/"))
        .noneMatch(e -> e.startsWith("org/apache/flink/formats/json/"));
  }

  /**
   * Flink's {@code HadoopUtils} is in a distribution's lib/, loaded parent-first, where the Hadoop
   * inside this jar cannot be seen: a class of the jar that calls it fails with {@code
   * NoClassDefFoundError: org/apache/hadoop/conf/Configuration} on any cluster without Hadoop, as
   * Iceberg's SQL catalog factory did at {@code CREATE CATALOG}. The shading sends its calls to
   * Tally's {@code ClusterHadoopConfiguration}; a new caller would need the same.
   */
  @Test
  void noClassOfItCallsFlinksHadoopUtilsWhichCannotSeeTheHadoopInTheJar() throws Exception {
    byte[] flinks = "org/apache/flink/runtime/util/HadoopUtils".getBytes(StandardCharsets.UTF_8);
    byte[] tallys =
        "dev/tally/adapters/iceberg/ClusterHadoopConfiguration".getBytes(StandardCharsets.UTF_8);
    List<String> callers = new ArrayList<>();
    boolean redirected = false;
    try (JarFile file = new JarFile(jar.toFile())) {
      for (JarEntry entry : Collections.list(file.entries())) {
        if (!entry.getName().endsWith(".class")) {
          continue;
        }
        byte[] bytes;
        try (InputStream in = file.getInputStream(entry)) {
          bytes = in.readAllBytes();
        }
        if (contains(bytes, flinks)) {
          callers.add(entry.getName());
        }
        if (entry.getName().equals("org/apache/iceberg/flink/FlinkCatalogFactory.class")) {
          redirected = contains(bytes, tallys);
        }
      }
    }
    assertThat(callers).isEmpty();
    assertThat(redirected).as("FlinkCatalogFactory calls ClusterHadoopConfiguration").isTrue();
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  @Test
  void itHoldsNoTestLocalStackOrFlinkClasses() {
    assertThat(entries)
        .noneMatch(
            e ->
                e.startsWith("dev/tally/stack/")
                    || e.startsWith("dev/tally/demo/")
                    || e.startsWith("dev/tally/bench/")
                    || e.startsWith("dev/tally/it/"))
        .noneMatch(
            e ->
                e.startsWith("dev/tally/")
                    && (e.endsWith("Test.class")
                        || e.endsWith("ITCase.class")
                        || e.endsWith("IT.class")))
        .noneMatch(e -> e.startsWith("dev/tally/domain/fixtures/"))
        .noneMatch(
            e ->
                e.startsWith("org/apache/flink/runtime/")
                    || e.startsWith("org/apache/flink/api/common/"))
        .noneMatch(e -> e.startsWith("org/apache/flink/streaming/api/environment/"))
        .noneMatch(e -> e.startsWith("org/junit/") || e.startsWith("org/assertj/"));
  }
}
