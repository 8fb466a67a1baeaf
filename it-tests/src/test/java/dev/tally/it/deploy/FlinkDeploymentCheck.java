package dev.tally.it.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tally.runtime.TallyMain;
import dev.tally.runtime.config.TallyConfig;
import dev.tally.stack.FlinkCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobSpec;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.util.TimeUtils;

/**
 * Reads a {@code FlinkDeployment} manifest as the Flink Kubernetes Operator does, and says what is
 * wrong with it: every field checked against the operator's own CRD schema (unknown fields, wrong
 * types, values outside an enum), the manifest bound to the operator's model classes, and its
 * settings held against what Tally runs with: the job's own configuration (examples/tally.yaml),
 * {@link FlinkCluster}'s recovery settings, the image's Dockerfile and Tally's Flink version.
 *
 * <p>The newest operator API on Maven Central (1.10) ends its {@code flinkVersion} enum at {@code
 * v1_20}; where the CRD lacks the version Tally is built on, {@code flinkVersion} is checked
 * against Tally's Flink version instead (docs/deployment.md names the operator that knows it).
 */
final class FlinkDeploymentCheck {

  private static final YAMLMapper YAML = new YAMLMapper();
  private static final String CRD = "META-INF/fabric8/flinkdeployments.flink.apache.org-v1.yml";
  private static final Pattern COPY_JAR = Pattern.compile("(?m)^COPY\\s+(\\S+\\.jar)\\s+(\\S+)$");
  private static final Pattern ARG_FLINK = Pattern.compile("(?m)^ARG FLINK_VERSION=(\\S+)$");
  private static final Pattern IMAGE_SETTING = Pattern.compile("'([a-z0-9.-]+): ([^']*)'");

  private FlinkDeploymentCheck() {}

  /** The Flink version a manifest names for the Flink Tally is built on, e.g. {@code v2_1}. */
  static String flinkVersionOfTally() {
    String[] parts = EnvironmentInformation.getVersion().split("\\.");
    return "v" + parts[0] + "_" + parts[1];
  }

  /**
   * What is wrong with the manifest, each problem with its place; empty if nothing is.
   *
   * @param manifest the {@code FlinkDeployment}'s YAML
   * @param dockerfile the image's Dockerfile
   * @param tally the configuration the job runs with
   */
  static List<String> problems(String manifest, String dockerfile, TallyConfig tally) {
    List<String> problems = new ArrayList<>();
    JsonNode tree;
    try {
      tree = YAML.readTree(manifest);
    } catch (IOException e) {
      return List.of("not YAML: " + e.getMessage());
    }
    if (!"FlinkDeployment".equals(tree.path("kind").asText())) {
      problems.add("kind: " + tree.path("kind") + " is not FlinkDeployment");
    }
    String apiVersion = tree.path("apiVersion").asText();
    if (!apiVersion.startsWith("flink.apache.org/")) {
      problems.add("apiVersion: " + apiVersion + " is not of group flink.apache.org");
      return problems;
    }
    Optional<JsonNode> schema = crdSchema(apiVersion.substring(apiVersion.indexOf('/') + 1));
    if (schema.isEmpty()) {
      problems.add("apiVersion: the operator serves no " + apiVersion);
      return problems;
    }
    JsonNode specSchema = schema.get().path("properties").path("spec");
    ObjectNode spec = tree.path("spec") instanceof ObjectNode o ? o.deepCopy() : null;
    if (spec == null) {
      problems.add("spec: missing");
      return problems;
    }
    checkFlinkVersion(spec, specSchema, problems);
    checkAgainstSchema(spec, specSchema, "spec", problems);
    if (!problems.isEmpty()) {
      return problems;
    }
    ObjectNode bound = ((ObjectNode) tree.deepCopy()).set("spec", spec);
    FlinkDeployment deployment;
    try {
      deployment = YAML.treeToValue(bound, FlinkDeployment.class);
    } catch (IOException e) {
      return List.of("the operator's model does not read it: " + e.getMessage());
    }
    checkJob(deployment.getSpec(), dockerfile, tally, problems);
    checkConfiguration(deployment.getSpec().getFlinkConfiguration(), dockerfile, tally, problems);
    return problems;
  }

  /** The CRD's OpenAPI schema of {@code version}, as the operator's API jar ships it. */
  private static Optional<JsonNode> crdSchema(String version) {
    try (InputStream in = FlinkDeployment.class.getClassLoader().getResourceAsStream(CRD)) {
      JsonNode crd = YAML.readTree(Objects.requireNonNull(in, CRD));
      for (JsonNode served : crd.path("spec").path("versions")) {
        if (version.equals(served.path("name").asText())) {
          return Optional.of(served.path("schema").path("openAPIV3Schema"));
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@code flinkVersion} must be Tally's; if the CRD's enum does not know it yet, it is taken out
   * of what the schema and the model see.
   */
  private static void checkFlinkVersion(ObjectNode spec, JsonNode specSchema, List<String> out) {
    String expected = flinkVersionOfTally();
    String actual = spec.path("flinkVersion").asText();
    if (!expected.equals(actual)) {
      out.add("spec.flinkVersion: " + actual + " is not Tally's Flink " + expected);
    }
    boolean known = false;
    for (JsonNode value : specSchema.path("properties").path("flinkVersion").path("enum")) {
      known |= value.asText().equals(actual);
    }
    if (!known && expected.equals(actual)) {
      spec.remove("flinkVersion");
    }
  }

  /** The subset of OpenAPI v3 a CRD schema uses, as the Kubernetes API server applies it. */
  private static void checkAgainstSchema(
      JsonNode value, JsonNode schema, String path, List<String> out) {
    if (schema.path("x-kubernetes-int-or-string").asBoolean()) {
      if (!value.isIntegralNumber() && !value.isTextual()) {
        out.add(path + ": " + value + " is neither an integer nor a string");
      }
      return;
    }
    if (schema.has("enum")) {
      boolean listed = false;
      for (JsonNode allowed : schema.get("enum")) {
        listed |= allowed.equals(value);
      }
      if (!listed) {
        out.add(path + ": " + value + " is not one of " + schema.get("enum"));
        return;
      }
    }
    String type = schema.path("type").asText();
    switch (type) {
      case "object" -> checkObject(value, schema, path, out);
      case "array" -> {
        if (!value.isArray()) {
          out.add(path + ": " + value + " is not an array");
          return;
        }
        for (int i = 0; i < value.size(); i++) {
          checkAgainstSchema(value.get(i), schema.path("items"), path + "[" + i + "]", out);
        }
      }
      case "string" -> expect(value.isTextual(), value, type, path, out);
      case "integer" -> expect(value.isIntegralNumber(), value, type, path, out);
      case "number" -> expect(value.isNumber(), value, type, path, out);
      case "boolean" -> expect(value.isBoolean(), value, type, path, out);
      default -> {
        // A schema without a type accepts any value.
      }
    }
  }

  private static void checkObject(JsonNode value, JsonNode schema, String path, List<String> out) {
    if (!value.isObject()) {
      out.add(path + ": " + value + " is not an object");
      return;
    }
    JsonNode properties = schema.path("properties");
    JsonNode additional = schema.path("additionalProperties");
    boolean preserveUnknown = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean();
    for (Map.Entry<String, JsonNode> field : value.properties()) {
      String at = path + "." + field.getKey();
      if (properties.has(field.getKey())) {
        checkAgainstSchema(field.getValue(), properties.get(field.getKey()), at, out);
      } else if (additional.isObject()) {
        checkAgainstSchema(field.getValue(), additional, at, out);
      } else if (!preserveUnknown && !additional.asBoolean(false)) {
        out.add(at + ": unknown field");
      }
    }
    for (JsonNode required : schema.path("required")) {
      if (!value.has(required.asText())) {
        out.add(path + "." + required.asText() + ": missing");
      }
    }
  }

  private static void expect(
      boolean matches, JsonNode value, String type, String path, List<String> out) {
    if (!matches) {
      out.add(path + ": " + value + " is not of type " + type);
    }
  }

  /** The job: Tally's main, the jar where the image puts it, its arguments, savepoint upgrades. */
  private static void checkJob(
      FlinkDeploymentSpec spec, String dockerfile, TallyConfig tally, List<String> out) {
    JobSpec job = spec.getJob();
    if (job == null) {
      out.add("spec.job: missing: Tally runs in application mode");
      return;
    }
    if (!TallyMain.class.getName().equals(job.getEntryClass())) {
      out.add(
          "spec.job.entryClass: " + job.getEntryClass() + " is not " + TallyMain.class.getName());
    }
    Matcher copy = COPY_JAR.matcher(dockerfile);
    if (!copy.find()) {
      out.add("Dockerfile: no COPY of the job jar");
    } else {
      if (!copy.group(1).startsWith("runtime-flink/target/tally-runtime-flink-")
          || !copy.group(1).endsWith("-job.jar")) {
        out.add("Dockerfile: COPY " + copy.group(1) + " is not runtime-flink's job jar");
      }
      if (!("local://" + copy.group(2)).equals(job.getJarURI())) {
        out.add(
            "spec.job.jarURI: "
                + job.getJarURI()
                + " is not the jar the image holds, local://"
                + copy.group(2));
      }
    }
    if (job.getUpgradeMode() != UpgradeMode.SAVEPOINT) {
      out.add("spec.job.upgradeMode: " + job.getUpgradeMode() + " loses the job's state");
    }
    if (job.getParallelism() != tally.job().parallelism()) {
      out.add(
          "spec.job.parallelism: "
              + job.getParallelism()
              + " is not tally.yaml's job.parallelism "
              + tally.job().parallelism());
    }
    Matcher arg = ARG_FLINK.matcher(dockerfile);
    if (!arg.find() || !arg.group(1).equals(EnvironmentInformation.getVersion())) {
      out.add(
          "Dockerfile: FLINK_VERSION is not Tally's Flink " + EnvironmentInformation.getVersion());
    }
  }

  /**
   * The cluster's configuration: every key the job also sets has the job's value, the recovery
   * settings are {@link FlinkCluster}'s measured ones, and the image's own defaults agree.
   */
  private static void checkConfiguration(
      Map<String, String> flink, String dockerfile, TallyConfig tally, List<String> out) {
    Map<String, String> cluster = flink == null ? Map.of() : new TreeMap<>(flink);
    Configuration job = new Configuration();
    tally.state().applyTo(job);
    tally.checkpoints().applyTo(job);
    tally.restart().applyTo(job);
    tally.job().applyTo(job);
    job.toMap()
        .forEach(
            (key, value) -> {
              if (cluster.containsKey(key) && !sameValue(cluster.get(key), value)) {
                out.add(
                    "spec.flinkConfiguration."
                        + key
                        + ": "
                        + cluster.get(key)
                        + " is not the job's "
                        + value
                        + " (tally.yaml)");
              }
            });
    Map<String, String> image = new TreeMap<>();
    Matcher setting = IMAGE_SETTING.matcher(dockerfile);
    while (setting.find()) {
      image.put(setting.group(1), setting.group(2));
    }
    FlinkCluster.RECOVERY.forEach(
        (key, value) -> {
          if (!sameValue(cluster.get(key), value)) {
            out.add(
                "spec.flinkConfiguration."
                    + key
                    + ": "
                    + cluster.get(key)
                    + " is not FlinkCluster's measured "
                    + value);
          }
          if (!sameValue(image.get(key), value)) {
            out.add("Dockerfile: " + key + ": " + image.get(key) + " is not " + value);
          }
        });
  }

  /**
   * Two spellings of one Flink value: {@code 10s} and {@code 10 s}, {@code true} and {@code TRUE}.
   */
  private static boolean sameValue(String a, String b) {
    if (a == null || b == null) {
      return a == b;
    }
    Optional<Duration> da = duration(a);
    Optional<Duration> db = duration(b);
    if (da.isPresent() && db.isPresent()) {
      return da.equals(db);
    }
    return a.strip().toLowerCase(Locale.ROOT).equals(b.strip().toLowerCase(Locale.ROOT));
  }

  private static Optional<Duration> duration(String text) {
    try {
      return Optional.of(TimeUtils.parseDuration(text));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
