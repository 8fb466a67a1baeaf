package dev.tally.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A service that cannot start fails fast, with its log in the message, and leaves no process. */
class ServiceProcessIT {
  @TempDir Path workDir;

  @Test
  void aServiceThatExitsBeforeItIsReadyFailsWithTheTailOfItsLog() {
    ServiceProcess process =
        ServiceProcess.builder("broken")
            .classpath(ServiceClasspath.of("kafka"))
            .mainClass("dev.tally.stack.NoSuchMain")
            .workingDirectory(workDir)
            .start();

    assertThatThrownBy(() -> process.awaitReady(Duration.ofMinutes(1), () -> false))
        .isInstanceOf(StackException.class)
        .hasMessageContaining("exited with code 1 before it was ready")
        // From the tail of the service's log, where the JVM reported it.
        .hasMessageContaining("Could not find or load main class dev.tally.stack.NoSuchMain");
    assertThat(process.isAlive()).isFalse();
  }

  @Test
  void aServiceThatNeverBecomesReadyIsStoppedAtTheTimeout() {
    ServiceProcess process =
        ServiceProcess.builder("idle")
            .classpath(ServiceClasspath.of("iceberg-rest"))
            // A real server that runs fine; the probe simply never accepts it.
            .mainClass("org.apache.iceberg.rest.RESTCatalogServer")
            .removeInheritedEnv("CATALOG_")
            .env("CATALOG_REST_PORT", Integer.toString(LoopbackPorts.freePort()))
            .workingDirectory(workDir)
            .start();

    assertThatThrownBy(() -> process.awaitReady(Duration.ofSeconds(3), () -> false))
        .isInstanceOf(StackException.class)
        .hasMessageContaining("was not ready within PT3S");
    assertThat(process.isAlive()).isFalse();
  }
}
