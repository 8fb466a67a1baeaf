package dev.tally.it.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tally.it.support.OneHourOfSpending;
import dev.tally.it.support.SpendingRows;
import dev.tally.it.support.StackFixture;
import dev.tally.it.support.TallyCommand;
import dev.tally.runtime.config.ConfigurationException;
import dev.tally.stack.LocalStack;
import dev.tally.stack.OAuthServer;
import dev.tally.stack.TallyYaml;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/deployment.md "Secured catalog", on the real stack plus a real OAuth2 server (Keycloak): the
 * REST catalog client gets its tokens with the OAuth2 client-credentials grant ({@code
 * iceberg.catalog.credential}, {@code oauth2-server-uri}, {@code scope}), the secret only from the
 * environment ({@code ${…}}). The job, started as {@code TallyMain} starts it, writes its rows
 * through the catalog with tokens Keycloak issued; a wrong secret, which Keycloak refuses, fails
 * the start naming the catalog's keys before any job is submitted; the secret reaches neither a log
 * line of this JVM (INFO and above, the job's tasks included) nor the effective-configuration dump
 * nor the start's error.
 *
 * <p>The stack's catalog (Iceberg's reference REST server) takes any bearer token and none: that
 * the catalog itself refuses an unauthenticated client is not shown here (see docs/deployment.md).
 */
class OAuthCatalogIT {

  private static final String CREDENTIAL_VARIABLE = "TALLY_IT_CATALOG_CREDENTIAL";
  private static final String CLIENT_ID = "tally-job";
  private static final String SECRET = "oauth-" + UUID.randomUUID();

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static StackFixture fixture;
  private static OAuthServer oauth;
  private static LocalStack stack;

  @BeforeAll
  static void startServices() throws Exception {
    // Keycloak takes the longest to start: it builds itself meanwhile the stack starts.
    Path oauthDir =
        Path.of("target", "oauth-catalog-it", "keycloak-" + System.currentTimeMillis())
            .toAbsolutePath();
    CompletableFuture<OAuthServer> starting =
        CompletableFuture.supplyAsync(() -> OAuthServer.start(oauthDir, CLIENT_ID, SECRET));
    try {
      fixture = StackFixture.start("oauth-catalog-it");
      stack = fixture.stack();
    } finally {
      oauth = starting.get(13, TimeUnit.MINUTES);
    }
  }

  @AfterAll
  static void stopServices() throws Exception {
    try {
      if (oauth != null) {
        oauth.close();
      }
    } finally {
      if (fixture != null) {
        fixture.close();
      }
    }
  }

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theJobWritesThroughTheCatalogWithClientCredentialsAndNeverShowsTheSecret(
      @InjectMiniCluster MiniCluster flink) throws Exception {
    String topic = "tx-oauth-" + UUID.randomUUID();
    stack.kafka().createTopic(topic, 2, Map.of("retention.ms", "-1"));
    OneHourOfSpending.produce(stack.kafka().bootstrapServers(), topic);
    Path config = configuration(topic, "spending_oauth");
    Function<String, String> environment = environmentWith(CLIENT_ID + ":" + SECRET);
    long tokensBefore = oauth.tokensIssued();

    TallyCommand.Shown shown = TallyCommand.printConfigThenRun(environment, config);

    assertThat(shown.effectiveConfiguration())
        .contains("iceberg.catalog.credential")
        .contains(oauth.tokenEndpoint())
        .doesNotContain(SECRET);
    assertThat(shown.logs()).as("the logs of the start and the job").doesNotContain(SECRET);
    assertThat(shown.logs())
        .as("the capture holds the job's own log lines, so it saw what the job logs")
        .contains("iceberg.catalog");
    assertThat(oauth.tokensIssued())
        .as("tokens Keycloak issued to %s for the start and the job's tasks", CLIENT_ID)
        .isGreaterThan(tokensBefore);
    assertThat(
            SpendingRows.readTallyTable(
                fixture.catalog(), TableIdentifier.of("analytics", "spending_oauth")))
        .containsExactlyInAnyOrderEntriesOf(OneHourOfSpending.rows());
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aWrongSecretFailsTheStartNamingTheCatalogKeys(@InjectMiniCluster MiniCluster flink)
      throws Exception {
    String topic = "tx-oauth-wrong-" + UUID.randomUUID();
    stack.kafka().createTopic(topic, 1, Map.of("retention.ms", "-1"));
    String wrong = "wrong-" + UUID.randomUUID();
    Path config = configuration(topic, "spending_oauth_wrong");
    int jobsBefore = flink.listJobs().get().size();

    assertThatThrownBy(
            () ->
                TallyCommand.run(
                    environmentWith(CLIENT_ID + ":" + wrong), "--config", config.toString()))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("iceberg.catalog.credential")
        .hasMessageContaining("iceberg.catalog.oauth2-server-uri")
        .hasMessageContaining(oauth.tokenEndpoint())
        .hasMessageContaining("Invalid client or Invalid client credentials")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(wrong));
    assertThat(flink.listJobs().get()).as("no job submitted").hasSize(jobsBefore);
    assertThat(
            fixture.catalog().tableExists(TableIdentifier.of("analytics", "spending_oauth_wrong")))
        .as("no table created")
        .isFalse();
  }

  /** A bounded job whose catalog client takes OAuth2 client credentials from the environment. */
  private static Path configuration(String topic, String table) {
    Path root = fixture.root();
    return TallyYaml.builder(stack.tallyServices())
        .topic(topic)
        .bounded(true)
        .table(table)
        .checkpointDirectory(root.resolve("checkpoints-" + table))
        .checkpointInterval(Duration.ofSeconds(1))
        .parallelism(2)
        .set("iceberg.catalog.credential", "'${" + CREDENTIAL_VARIABLE + "}'")
        .set("iceberg.catalog.oauth2-server-uri", oauth.tokenEndpoint())
        .set("iceberg.catalog.scope", OAuthServer.SCOPE)
        .writeTo(root.resolve(table + ".yaml"));
  }

  private static Function<String, String> environmentWith(String credential) {
    return name -> CREDENTIAL_VARIABLE.equals(name) ? credential : System.getenv(name);
  }
}
