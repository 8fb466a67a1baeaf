package dev.tally.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.adapters.iceberg.CatalogConfig;
import dev.tally.adapters.iceberg.IcebergSinkConfig;
import dev.tally.adapters.iceberg.MaintenanceConfig;
import dev.tally.adapters.iceberg.StorageConfig;
import dev.tally.adapters.kafka.DeadLetterConfig;
import dev.tally.adapters.kafka.KafkaAnomalySinkConfig;
import dev.tally.adapters.kafka.KafkaSourceConfig;
import dev.tally.ports.config.ConfigKey;
import dev.tally.ports.config.ConfigPrefix;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The reference documentation and the sample configuration stay true to the key declarations:
 * docs/configuration.md has one table row per declared key, {@code | `name` | default | meaning |},
 * whose default and meaning are the declaration's.
 */
class ConfigurationDocsTest {

  /** Every class that declares keys. */
  private static final List<Class<?>> DECLARING_CLASSES =
      List.of(
          KafkaSourceConfig.class,
          DeadLetterConfig.class,
          KafkaAnomalySinkConfig.class,
          CatalogConfig.class,
          StorageConfig.class,
          IcebergSinkConfig.class,
          MaintenanceConfig.class,
          AggregationKeys.class,
          StateConfig.class,
          CheckpointConfig.class,
          RestartConfig.class,
          JobConfig.class,
          AnomalyKeys.class);

  private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| (.*?) \\| (.*) \\|$");

  private static final Path DOCS = Path.of("..", "docs", "configuration.md");

  /** Each declared key or prefix by name, as the table row the documentation must hold. */
  private static Map<String, String> declaredRows() throws IllegalAccessException {
    Map<String, String> rows = new LinkedHashMap<>();
    for (Class<?> type : DECLARING_CLASSES) {
      for (Field field : type.getDeclaredFields()) {
        if (!Modifier.isPublic(field.getModifiers()) || !Modifier.isStatic(field.getModifiers())) {
          continue;
        }
        Object value = field.get(null);
        if (value instanceof ConfigKey<?> key) {
          rows.put(key.name(), row(key.name(), key.defaultText(), key.description()));
        } else if (value instanceof ConfigPrefix prefix) {
          rows.put(prefix.name(), row(prefix.name(), "", prefix.description()));
        }
      }
    }
    return rows;
  }

  private static String row(String name, String defaultText, String description) {
    return "| `"
        + name
        + "` | "
        + (defaultText.isEmpty() ? "—" : defaultText)
        + " | "
        + description
        + " |";
  }

  private static Map<String, String> documentedRows() throws Exception {
    Map<String, String> rows = new LinkedHashMap<>();
    for (String line : Files.readAllLines(DOCS)) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        rows.put(m.group(1), line);
      }
    }
    return rows;
  }

  @Test
  void everyDeclaredKeyIsDocumentedWithItsDefaultAndMeaningAndNoOtherKeyIs() throws Exception {
    Map<String, String> declared = declaredRows();
    Map<String, String> documented = documentedRows();

    assertThat(declared).hasSizeGreaterThan(70);
    assertThat(declared.values())
        .as("every key has a description")
        .noneMatch(row -> row.endsWith(" |  |"));
    assertThat(documented.keySet())
        .as("the keys docs/configuration.md lists")
        .containsExactlyInAnyOrderElementsOf(declared.keySet());
    assertThat(documented)
        .as("docs/configuration.md rows, expected exactly as declared")
        .containsExactlyInAnyOrderEntriesOf(declared);
  }

  @Test
  void everyKeyTallyReadsIsDeclaredInOneOfTheDeclaringClasses() throws Exception {
    TallyConfig config =
        TallyConfig.read(
            ConfigSource.of(
                Map.of(
                    "kafka.bootstrap-servers", "127.0.0.1:9092",
                    "state.checkpoint-directory", "file:///var/tally/checkpoints",
                    "iceberg.catalog.warehouse", "file:///var/tally/warehouse")));

    assertThat(declaredRows().keySet())
        .as("keys read, defaults included, are all declared where this test looks")
        .containsAll(config.effective().keySet());
  }

  @Test
  void theSampleConfigurationIsValid() {
    TallyConfig config =
        TallyConfig.read(
            ConfigSource.load(
                Path.of("..", "examples", "tally.yaml"),
                List.of(),
                Map.of("TALLY_ICEBERG_REST_CREDENTIAL", "tally:s3cr3t")::get));

    assertThat(config.iceberg().tableIdentifier()).hasToString("analytics.user_hourly_spending");
    assertThat(config.effective())
        .containsEntry("kafka.properties.sasl.jaas.config", "")
        .containsEntry("iceberg.catalog.credential", "******");
  }
}
