package dev.tally.it.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.runtime.config.ConfigSource;
import dev.tally.runtime.config.TallyConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No Kubernetes cluster runs here, so deploy/'s {@code FlinkDeployment} is read as the Flink
 * Kubernetes Operator reads it ({@link FlinkDeploymentCheck}): the operator's CRD schema and model
 * classes, and the settings that must agree with the job's configuration, the measured cluster and
 * the image. Each broken manifest below is the real one with one mistake, and must be refused.
 */
class DeploymentManifestsTest {

  private static final Path DEPLOY = Path.of("..", "deploy");

  private static String manifest;
  private static String dockerfile;
  private static TallyConfig tally;

  @BeforeAll
  static void read() throws IOException {
    manifest = read(DEPLOY.resolve("kubernetes/flink-deployment.yaml"));
    dockerfile = read(DEPLOY.resolve("docker/Dockerfile"));
    tally =
        TallyConfig.read(
            ConfigSource.load(
                Path.of("..", "examples", "tally.yaml"),
                List.of(),
                Map.of("TALLY_ICEBERG_REST_CREDENTIAL", "tally:s3cr3t")::get));
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }

  private static List<String> problemsWith(String from, String to) {
    assertThat(manifest).as("the mistake's place in the real manifest").contains(from);
    return FlinkDeploymentCheck.problems(manifest.replace(from, to), dockerfile, tally);
  }

  @Test
  void theShippedManifestIsWhatTheOperatorAcceptsAndAgreesWithTheJobTheClusterAndTheImage() {
    assertThat(FlinkDeploymentCheck.problems(manifest, dockerfile, tally)).isEmpty();
  }

  @Test
  void anUnknownFieldIsRefusedAsTheApiServerWould() {
    assertThat(problemsWith("  job:\n", "  jobs:\n")).contains("spec.jobs: unknown field");
    assertThat(problemsWith("    upgradeMode: savepoint", "    upgrade-mode: savepoint"))
        .contains("spec.job.upgrade-mode: unknown field");
    assertThat(problemsWith("          envFrom:", "          envFromm:"))
        .contains("spec.podTemplate.spec.containers[0].envFromm: unknown field");
  }

  @Test
  void aValueOfTheWrongTypeOrOutsideItsEnumIsRefused() {
    assertThat(problemsWith("    parallelism: 4", "    parallelism: four"))
        .contains("spec.job.parallelism: \"four\" is not of type integer");
    assertThat(problemsWith("    upgradeMode: savepoint", "    upgradeMode: snapshot"))
        .anyMatch(p -> p.startsWith("spec.job.upgradeMode: \"snapshot\" is not one of"));
    assertThat(problemsWith("pipeline.max-parallelism: \"128\"", "pipeline.max-parallelism: 128"))
        .contains("spec.flinkConfiguration.pipeline.max-parallelism: 128 is not of type string");
  }

  @Test
  void aFlinkVersionOtherThanTallysIsRefused() {
    assertThat(
            problemsWith(
                "flinkVersion: " + FlinkDeploymentCheck.flinkVersionOfTally(),
                "flinkVersion: v1_20"))
        .anyMatch(p -> p.startsWith("spec.flinkVersion: v1_20 is not Tally's Flink"));
  }

  @Test
  void aJarTheImageDoesNotHoldOrAnotherMainIsRefused() {
    assertThat(problemsWith("usrlib/tally-job.jar", "usrlib/tally.jar"))
        .anyMatch(p -> p.startsWith("spec.job.jarURI: local:///opt/flink/usrlib/tally.jar"));
    assertThat(problemsWith("dev.tally.runtime.TallyMain", "dev.tally.Main"))
        .anyMatch(p -> p.startsWith("spec.job.entryClass: dev.tally.Main"));
  }

  @Test
  void settingsThatDisagreeWithTheJobOrTheMeasuredClusterAreRefused() {
    assertThat(
            problemsWith(
                "execution.checkpointing.interval: 10s", "execution.checkpointing.interval: 1m"))
        .anyMatch(
            p -> p.startsWith("spec.flinkConfiguration.execution.checkpointing.interval: 1m"));
    assertThat(
            problemsWith("pipeline.max-parallelism: \"128\"", "pipeline.max-parallelism: \"256\""))
        .anyMatch(p -> p.startsWith("spec.flinkConfiguration.pipeline.max-parallelism: 256"));
    assertThat(
            problemsWith(
                "heartbeat.rpc-failure-threshold: \"2\"", "heartbeat.rpc-failure-threshold: \"5\""))
        .anyMatch(p -> p.contains("heartbeat.rpc-failure-threshold: 5 is not FlinkCluster's"));
    assertThat(problemsWith("    parallelism: 4", "    parallelism: 8"))
        .anyMatch(p -> p.startsWith("spec.job.parallelism: 8 is not tally.yaml's"));
  }

  @Test
  void aStatelessUpgradeIsRefused() {
    assertThat(problemsWith("    upgradeMode: savepoint", "    upgradeMode: stateless"))
        .anyMatch(p -> p.startsWith("spec.job.upgradeMode: STATELESS loses the job's state"));
  }
}
