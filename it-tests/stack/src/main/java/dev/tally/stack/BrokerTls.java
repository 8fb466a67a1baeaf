package dev.tally.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The TLS identity of a local broker: a fresh self-signed certificate for {@code 127.0.0.1} and
 * {@code localhost} in a PKCS12 key store, and the same certificate as a PEM trust store for its
 * clients. Made by the JDK's own {@code keytool}, so the stack needs nothing beyond a JDK; the key
 * store's password is random and lives only in the broker's working directory.
 *
 * @param keyStore the broker's PKCS12 key store
 * @param keyStorePassword its password (also the key's)
 * @param trustStore the certificate as PEM, for {@code ssl.truststore.type=PEM}
 */
public record BrokerTls(Path keyStore, String keyStorePassword, Path trustStore) {
  private static final long TIMEOUT_SECONDS = 60;

  /** Generates the identity under {@code dir}, valid for a week. */
  public static BrokerTls generate(Path dir) {
    Path keyStore = dir.resolve("broker.p12");
    Path trustStore = dir.resolve("broker-ca.pem");
    String password = UUID.randomUUID().toString();
    try {
      Files.createDirectories(dir);
      Files.deleteIfExists(keyStore);
      keytool(
          dir,
          "-genkeypair",
          "-alias",
          "broker",
          "-keyalg",
          "EC",
          "-groupname",
          "secp256r1",
          "-dname",
          "CN=localhost",
          "-ext",
          "SAN=ip:" + LoopbackPorts.HOST + ",dns:localhost",
          "-validity",
          "7",
          "-storetype",
          "PKCS12",
          "-keystore",
          keyStore.toString(),
          "-storepass",
          password,
          "-keypass",
          password);
      keytool(
          dir,
          "-exportcert",
          "-rfc",
          "-alias",
          "broker",
          "-keystore",
          keyStore.toString(),
          "-storepass",
          password,
          "-file",
          trustStore.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the broker's TLS identity under " + dir, e);
    }
    return new BrokerTls(keyStore, password, trustStore);
  }

  /** The password stays out of logs and exception messages. */
  @Override
  public String toString() {
    return "BrokerTls[" + keyStore + ", " + trustStore + "]";
  }

  private static void keytool(Path dir, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Path log = dir.resolve("keytool.log");
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new StackException(
            "keytool " + args[0] + " did not finish in " + TIMEOUT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new StackException("interrupted: keytool " + args[0], e);
    }
    if (process.exitValue() != 0) {
      throw new StackException(
          "keytool "
              + args[0]
              + " failed ("
              + process.exitValue()
              + "): "
              + Files.readString(log, StandardCharsets.UTF_8).strip());
    }
  }
}
