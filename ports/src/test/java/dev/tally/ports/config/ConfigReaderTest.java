package dev.tally.ports.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigReaderTest {

  private enum Colour {
    DEEP_BLUE,
    RED
  }

  private static final ConfigKey<Duration> TIMEOUT =
      ConfigKey.duration("x.timeout")
          .defaultValue(Duration.ofSeconds(30))
          .atLeast(Duration.ofSeconds(1))
          .description("d");
  private static final ConfigKey<Integer> COUNT =
      ConfigKey.integer("x.count").defaultValue(3).between(1, 16).description("d");
  private static final ConfigKey<Long> SIZE =
      ConfigKey.bytes("x.size").defaultValue(1024L * 1024).description("d");
  private static final ConfigKey<Colour> COLOUR =
      ConfigKey.enumeration("x.colour", Colour.class)
          .defaultValue(Colour.DEEP_BLUE)
          .description("d");
  private static final ConfigKey<List<String>> NAMES =
      ConfigKey.list("x.names").defaultValue(List.of("a")).description("d");
  private static final ConfigKey<String> HOST = ConfigKey.string("x.host").required();
  private static final ConfigKey<String> PASSWORD = ConfigKey.string("x.password").secret();
  private static final ConfigKey<String> SHARED = ConfigKey.string("x.shared-secret-name");
  private static final ConfigPrefix CLIENT = new ConfigPrefix("x.client.", "d");

  @Test
  void absentKeysTakeTheirDeclaredDefaultsAndShowThemInTheirOwnNotation() {
    ConfigReader r = new ConfigReader(Map.of());

    assertThat(r.get(TIMEOUT)).isEqualTo(Duration.ofSeconds(30));
    assertThat(r.get(COUNT)).isEqualTo(3);
    assertThat(r.get(SIZE)).isEqualTo(1024L * 1024);
    assertThat(r.get(COLOUR)).isEqualTo(Colour.DEEP_BLUE);
    assertThat(r.get(NAMES)).containsExactly("a");
    assertThat(r.get(HOST)).isNull();
    assertThat(r.problems()).isEmpty();
    assertThat(r.effectiveConfiguration())
        .containsEntry("x.timeout", "30s")
        .containsEntry("x.size", "1MiB")
        .containsEntry("x.colour", "deep-blue")
        .containsEntry("x.names", "a")
        .containsEntry("x.host", "");
  }

  @Test
  void setValuesAreParsedByTheirType() {
    ConfigReader r =
        new ConfigReader(
            Map.of(
                "x.timeout", " PT2M ",
                "x.count", "16",
                "x.size", "512KiB",
                "x.colour", "Deep_Blue",
                "x.names", "b, ,c"));

    assertThat(r.get(TIMEOUT)).isEqualTo(Duration.ofMinutes(2));
    assertThat(r.get(COUNT)).isEqualTo(16);
    assertThat(r.get(SIZE)).isEqualTo(512L * 1024);
    assertThat(r.get(COLOUR)).isEqualTo(Colour.DEEP_BLUE);
    assertThat(r.get(NAMES)).containsExactly("b", "c");
    assertThat(r.effectiveConfiguration()).containsEntry("x.timeout", "2m");
  }

  @Test
  void everyUnparseableValueAndUnknownKeyIsReportedOnceWithItsKey() {
    ConfigReader r =
        new ConfigReader(
            Map.of("x.count", "many", "x.colour", "green", "x.timeout", "soon", "x.typo", "1"));

    assertThat(r.get(COUNT)).as("falls back to the default").isEqualTo(3);
    r.get(COUNT);
    r.get(COLOUR);
    r.get(TIMEOUT);

    assertThat(r.problems())
        .containsExactly(
            "x.count: \"many\" is invalid: expected an integer",
            "x.colour: \"green\" is invalid: expected one of deep-blue, red",
            "x.timeout: \"soon\" is invalid: expected a duration such as 250ms, 10s, 5m, 1h, 1d or"
                + " PT10S",
            "x.typo: unknown key (see docs/configuration.md for the keys Tally reads)");
  }

  @Test
  void declaredRulesNameTheKeyAndTheBound() {
    assertThat(COUNT.problems(0)).containsExactly("x.count: must be between 1 and 16, not 0");
    assertThat(COUNT.problems(16)).isEmpty();
    assertThat(TIMEOUT.problems(Duration.ofMillis(10)))
        .containsExactly("x.timeout: must be at least 1s, not 10ms");
    assertThat(TIMEOUT.problems(Duration.ofSeconds(-1)))
        .contains("x.timeout: must not be negative, not -1s");
    assertThat(HOST.problems(" ")).containsExactly("x.host: must be set");
    assertThat(HOST.problems(null)).containsExactly("x.host: must be set");
    assertThat(PASSWORD.problems(null)).isEmpty();
  }

  @Test
  void theDocumentedDefaultIsTheDeclaredOne() {
    assertThat(TIMEOUT.defaultText()).isEqualTo("`30s`");
    assertThat(SIZE.defaultText()).isEqualTo("`1MiB`");
    assertThat(HOST.defaultText()).isEqualTo("required");
    assertThat(PASSWORD.defaultText()).isEmpty();
    assertThat(HOST.defaultDescribed("the first host").defaultText()).isEqualTo("the first host");
  }

  @Test
  void declaredSecretsAndSecretLookingPassThroughKeysAreMasked() {
    ConfigReader r =
        new ConfigReader(
            Map.of(
                "x.password", "hunter2",
                "x.shared-secret-name", "visible",
                "x.client.sasl.jaas.config", "s3cr3t",
                "x.client.linger.ms", "5"));

    assertThat(r.get(PASSWORD)).isEqualTo("hunter2");
    assertThat(r.get(SHARED)).isEqualTo("visible");
    assertThat(r.get(CLIENT)).containsEntry("sasl.jaas.config", "s3cr3t");

    assertThat(r.effectiveConfiguration())
        .containsEntry("x.password", "******")
        .as("a declared key is secret only when declared so")
        .containsEntry("x.shared-secret-name", "visible")
        .containsEntry("x.client.sasl.jaas.config", "******")
        .containsEntry("x.client.linger.ms", "5");
    assertThat(r.problems()).isEmpty();
  }

  @Test
  void buildCollectsEveryProblemOfAFeatureOnceAndReturnsNull() {
    ConfigReader r = new ConfigReader(Map.of());

    Object first =
        r.build(
            "x.*",
            () -> {
              throw new InvalidConfigException("x", List.of("x.host: must be set", "x.a: b"));
            });
    r.build(
        "x.*",
        () -> {
          throw new InvalidConfigException("x", List.of("x.host: must be set"));
        });
    r.build(
        "x.*",
        () -> {
          throw new IllegalArgumentException("plain");
        });

    assertThat(first).isNull();
    assertThat(r.problems()).containsExactly("x.host: must be set", "x.a: b", "x.*: plain");
  }
}
