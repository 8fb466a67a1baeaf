package dev.tally.runtime.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tally.runtime.TallyMain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * No Kubernetes cluster or Docker engine runs here, so the deployment material is checked for the
 * keys that decide whether Tally runs correctly: the entry point, state backend, checkpoint and
 * savepoint storage, upgrades through savepoints, the autoscaler, and an image built on the Flink
 * version Tally is compiled against.
 */
class DeploymentManifestsTest {

  private static final Path DEPLOY = Path.of("..", "deploy");

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return (Map<String, Object>) value;
  }

  @Test
  void theFlinkDeploymentRunsTallyWithRocksDbCheckpointsOnS3SavepointUpgradesAndTheAutoscaler()
      throws Exception {
    Map<String, Object> deployment =
        map(
            new Load(LoadSettings.builder().build())
                .loadFromString(
                    Files.readString(DEPLOY.resolve("kubernetes/flink-deployment.yaml"))));
    Map<String, Object> spec = map(deployment.get("spec"));
    Map<String, Object> flink = map(spec.get("flinkConfiguration"));
    Map<String, Object> job = map(spec.get("job"));

    assertThat(deployment).containsEntry("kind", "FlinkDeployment");
    assertThat(spec.get("flinkVersion"))
        .isEqualTo("v" + EnvironmentInformation.getVersion().substring(0, 3).replace('.', '_'));
    assertThat(job)
        .containsEntry("entryClass", TallyMain.class.getName())
        .containsEntry("upgradeMode", "savepoint")
        .containsEntry("jarURI", "local:///opt/flink/usrlib/tally-job.jar");
    assertThat(job.get("args")).isEqualTo(List.of("--config", "/opt/tally/tally.yaml"));
    assertThat(flink)
        .containsEntry("state.backend.type", "rocksdb")
        .containsEntry("execution.checkpointing.incremental", "true")
        .containsEntry("job.autoscaler.enabled", "true")
        .containsEntry("pipeline.max-parallelism", "128")
        .containsEntry(
            "metrics.reporter.prom.factory.class",
            "org.apache.flink.metrics.prometheus.PrometheusReporterFactory")
        .containsEntry("metrics.reporter.prom.port", "9249");
    assertThat((String) flink.get("execution.checkpointing.dir")).startsWith("s3://");
    assertThat((String) flink.get("execution.checkpointing.savepoint-dir")).startsWith("s3://");
  }

  @Test
  void theImageAndTheManifestDeclareALostTaskManagerLostWithinASecondAndKeepSpareSlots()
      throws Exception {
    Map<String, Object> flink =
        map(
            map(map(new Load(LoadSettings.builder().build())
                        .loadFromString(
                            Files.readString(DEPLOY.resolve("kubernetes/flink-deployment.yaml"))))
                    .get("spec"))
                .get("flinkConfiguration"));
    String dockerfile = Files.readString(DEPLOY.resolve("docker/Dockerfile"));

    // A dead TaskManager fails the heartbeat RPCs at once: lost after 2 of them, 500 ms apart.
    assertThat(flink)
        .containsEntry("heartbeat.interval", "500 ms")
        .containsEntry("heartbeat.timeout", "5 s")
        .containsEntry("heartbeat.rpc-failure-threshold", "2")
        .containsEntry("slotmanager.redundant-taskmanager-num", "1");
    assertThat(dockerfile)
        .contains("'heartbeat.interval: 500 ms'")
        .contains("'heartbeat.timeout: 5 s'")
        .contains("'heartbeat.rpc-failure-threshold: 2'");
  }

  @Test
  void theImageIsBuiltOnTheFlinkVersionTallyUsesWithTheJobJarAndTheS3Plugin() throws Exception {
    String dockerfile = Files.readString(DEPLOY.resolve("docker/Dockerfile"));

    assertThat(dockerfile)
        .contains("ARG FLINK_VERSION=" + EnvironmentInformation.getVersion() + "\n")
        .contains("FROM flink:${FLINK_VERSION}-java17")
        .contains("/opt/flink/plugins/s3-fs-hadoop")
        .contains(
            "COPY runtime-flink/target/tally-runtime-flink-*-job.jar /opt/flink/usrlib/tally-job.jar");
  }
}
