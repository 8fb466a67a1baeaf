package dev.tally.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * A real OAuth2 / OpenID Connect server: Keycloak's distribution in dev mode with an in-memory
 * database, holding one realm ({@value #REALM}) with one confidential client that may use the
 * client-credentials grant and ask for the scope {@value #SCOPE}. Keycloak checks the client's
 * secret on every token request: a wrong one is refused with {@code 401 invalid_client}.
 *
 * <p>The distribution (a zip resolved by Maven, see {@code it-tests/stack-keycloak}) is unpacked
 * under the work directory on every start: Keycloak rewrites its own {@code lib/} when it builds
 * itself for dev mode, so runs must not share one unpacked copy. The client secret reaches Keycloak
 * only through its environment (the realm file holds a placeholder), and every token it issues is
 * logged as a {@code CLIENT_LOGIN} event, so a test can tell that a client really came for one.
 *
 * <p>Keycloak 26.4 is the newest line that still runs on Java 17. Its first start builds the server
 * (Quarkus augmentation): about a minute on an idle two-core machine, several on a busy one.
 */
public final class OAuthServer implements AutoCloseable {
  /** The realm the client lives in. */
  public static final String REALM = "tally";

  /** The one scope the client may ask for besides none. */
  public static final String SCOPE = "catalog";

  private static final String SERVICE = "keycloak";
  private static final String REALM_FILE = "keycloak-realm.json";
  private static final String SECRET_VARIABLE = "TALLY_OAUTH_CLIENT_SECRET";
  private static final String CLIENT_ID_VARIABLE = "TALLY_OAUTH_CLIENT_ID";
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(12);

  private final int port;
  private final String clientId;
  private final ServiceProcess process;

  private OAuthServer(int port, String clientId, ServiceProcess process) {
    this.port = port;
    this.clientId = clientId;
    this.process = process;
  }

  /**
   * Unpacks Keycloak under {@code workDir} and starts it with a realm holding the confidential
   * client {@code clientId} whose secret is {@code clientSecret}.
   *
   * @throws StackException if the realm's discovery document does not answer 200 in time
   */
  public static OAuthServer start(Path workDir, String clientId, String clientSecret) {
    Objects.requireNonNull(workDir, "workDir");
    Objects.requireNonNull(clientId, "clientId");
    Objects.requireNonNull(clientSecret, "clientSecret");
    Path dir = workDir.toAbsolutePath();
    Path home = unpack(distribution(), dir.resolve("dist"));
    // Keycloak imports a file only if its name is <realm>-realm.json.
    ServiceClasspath.copyResource(REALM_FILE, home.resolve("data/import/" + REALM + "-realm.json"));
    int port = LoopbackPorts.freePort();
    ServiceProcess process =
        ServiceProcess.builder(SERVICE)
            // kc.sh, not java: it relaunches the JVM after the dev-mode build (exit code 10) and
            // forwards the stop signal to the JVM it runs.
            .executable(Path.of("/bin/sh"))
            .args(
                home.resolve("bin/kc.sh").toString(),
                "start-dev",
                "--db=dev-mem",
                "--http-host=" + LoopbackPorts.HOST,
                "--http-port=" + port,
                "--http-management-port=" + LoopbackPorts.freePort(),
                "--import-realm",
                "--spi-events-listener--jboss-logging--success-level=info")
            .removeInheritedEnv("KC_")
            .removeInheritedEnv("KEYCLOAK_")
            .removeInheritedEnv("JAVA_OPTS")
            .env("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString())
            .env("JAVA_OPTS_KC_HEAP", "-Xms64m -Xmx512m")
            // The client compiler only: Keycloak's start (and its dev-mode build) is dominated by
            // code that runs once, which C2 would spend the machine's two cores optimising.
            .env("JAVA_OPTS_APPEND", "-XX:TieredStopAtLevel=1")
            .env(CLIENT_ID_VARIABLE, clientId)
            .env(SECRET_VARIABLE, clientSecret)
            .workingDirectory(dir)
            .logFile(dir.resolve("keycloak.log"))
            .start();
    OAuthServer server = new OAuthServer(port, clientId, process);
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest probe =
        HttpRequest.newBuilder(URI.create(server.issuer() + "/.well-known/openid-configuration"))
            .timeout(Duration.ofSeconds(5))
            .GET()
            .build();
    process.awaitReady(
        READY_TIMEOUT,
        () -> http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    return server;
  }

  /** The realm's issuer, {@code http://127.0.0.1:<port>/realms/tally}. */
  public String issuer() {
    return "http://" + LoopbackPorts.HOST + ":" + port + "/realms/" + REALM;
  }

  /** The token endpoint: Iceberg's {@code oauth2-server-uri}. */
  public String tokenEndpoint() {
    return issuer() + "/protocol/openid-connect/token";
  }

  /** The confidential client's id. */
  public String clientId() {
    return clientId;
  }

  /**
   * How many tokens Keycloak has issued to the client so far, as its event log says: one {@code
   * CLIENT_LOGIN} event per successful client-credentials grant.
   */
  public long tokensIssued() {
    String client = "clientId=\"" + clientId + "\"";
    try (Stream<String> lines = Files.lines(process.logFile(), StandardCharsets.UTF_8)) {
      return lines
          .filter(line -> line.contains("type=\"CLIENT_LOGIN\"") && line.contains(client))
          .count();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + process.logFile(), e);
    }
  }

  /** The server process, e.g. for its log file. */
  public ServiceProcess process() {
    return process;
  }

  /** Stops Keycloak; its in-memory realm is gone with it. */
  @Override
  public void close() {
    process.close();
  }

  @Override
  public String toString() {
    return "OAuthServer[" + issuer() + ", client " + clientId + "]";
  }

  private static Path distribution() {
    List<Path> files = ServiceClasspath.of(SERVICE);
    if (files.size() != 1) {
      throw new StackException("expected one Keycloak distribution zip, got " + files);
    }
    return files.get(0);
  }

  /** Unpacks the zip into {@code target}; returns the distribution's home (its one top folder). */
  private static Path unpack(Path zip, Path target) {
    Path home = null;
    try (InputStream in = Files.newInputStream(zip);
        ZipInputStream entries = new ZipInputStream(in)) {
      for (ZipEntry entry = entries.getNextEntry(); entry != null; entry = entries.getNextEntry()) {
        Path file = target.resolve(entry.getName()).normalize();
        if (!file.startsWith(target)) {
          throw new StackException(zip + " holds an entry outside its folder: " + entry.getName());
        }
        if (home == null) {
          home = target.resolve(target.relativize(file).getName(0));
        }
        if (entry.isDirectory()) {
          Files.createDirectories(file);
        } else {
          Files.createDirectories(file.getParent());
          Files.copy(entries, file, StandardCopyOption.REPLACE_EXISTING);
        }
      }
      if (home == null) {
        throw new StackException(zip + " is empty");
      }
      Files.setPosixFilePermissions(
          home.resolve("bin/kc.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
      return home;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack " + zip + " into " + target, e);
    }
  }
}
