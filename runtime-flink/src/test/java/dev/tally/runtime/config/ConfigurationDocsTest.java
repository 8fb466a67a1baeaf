package dev.tally.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The documentation and the sample configuration stay true to the code. */
class ConfigurationDocsTest {

  private static final List<Class<?>> CONFIG_CLASSES =
      List.of(
          KafkaConfig.class,
          IcebergConfig.class,
          AggregationConfig.class,
          StateConfig.class,
          CheckpointConfig.class,
          RestartConfig.class,
          JobConfig.class);

  private static List<String> keys() throws IllegalAccessException {
    List<String> keys = new ArrayList<>();
    for (Class<?> type : CONFIG_CLASSES) {
      for (Field field : type.getDeclaredFields()) {
        if (Modifier.isPublic(field.getModifiers())
            && Modifier.isStatic(field.getModifiers())
            && field.getType() == String.class) {
          keys.add((String) field.get(null));
        }
      }
    }
    return keys;
  }

  @Test
  void everyKeyIsDocumented() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "configuration.md"));
    List<String> keys = keys();

    assertThat(keys).hasSizeGreaterThan(70);
    assertThat(keys).allSatisfy(key -> assertThat(docs).contains("`" + key + "`"));
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
