package dev.tally.it.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.tally.adapters.kafka.KafkaSourceModule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ARCHITECTURE "Modules" across the whole reactor: dependencies point inward, {@code domain ← ports
 * ← adapters-* ← runtime}, and the adapters never see each other; the local stack is a library
 * under the two apps (the demo and the bench) and knows neither, and neither app knows the other.
 * Layers must not be empty (ArchUnit's default), and every rule refuses to pass on an empty class
 * set, so none can pass vacuously.
 */
class HexagonArchitectureTest {

  private static final String[] TALLY_MODULES = {
    "dev.tally.domain..", "dev.tally.ports..", "dev.tally.adapters..", "dev.tally.runtime.."
  };

  private static JavaClasses tally;

  @BeforeAll
  static void importProductionClasses() {
    tally =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.tally");
    assertThat(tally.stream().map(c -> c.getPackageName()).distinct())
        .as("packages of every module are on the class path")
        .contains(
            "dev.tally.domain.transaction",
            "dev.tally.ports.in",
            "dev.tally.adapters.kafka",
            "dev.tally.adapters.iceberg",
            "dev.tally.runtime.topology",
            "dev.tally.stack",
            "dev.tally.demo",
            "dev.tally.bench");
  }

  @Test
  void dependenciesPointInwardFromTheAppsThroughTheRuntimeAdaptersAndPortsToTheDomain() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("Domain")
        .definedBy("dev.tally.domain..")
        .layer("Ports")
        .definedBy("dev.tally.ports..")
        .layer("Kafka adapter")
        .definedBy("dev.tally.adapters.kafka..")
        .layer("Iceberg adapter")
        .definedBy("dev.tally.adapters.iceberg..")
        .layer("Runtime")
        .definedBy("dev.tally.runtime..")
        .layer("Local stack")
        .definedBy("dev.tally.stack..")
        .layer("Demo")
        .definedBy("dev.tally.demo..")
        .layer("Bench")
        .definedBy("dev.tally.bench..")
        .whereLayer("Demo")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Bench")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Local stack")
        .mayOnlyBeAccessedByLayers("Demo", "Bench")
        .whereLayer("Runtime")
        .mayOnlyBeAccessedByLayers("Bench")
        .whereLayer("Kafka adapter")
        .mayOnlyBeAccessedByLayers("Runtime", "Bench")
        .whereLayer("Iceberg adapter")
        .mayOnlyBeAccessedByLayers("Runtime")
        .whereLayer("Ports")
        .mayOnlyBeAccessedByLayers("Kafka adapter", "Iceberg adapter", "Runtime", "Bench")
        .whereLayer("Domain")
        .mayOnlyBeAccessedByLayers("Ports", "Kafka adapter", "Iceberg adapter", "Runtime", "Bench")
        .check(tally);
  }

  @Test
  void theLocalStackLaunchesTallyButNeverLinksItsCodeOrAnApp() {
    noClasses()
        .that()
        .resideInAPackage("dev.tally.stack..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.tally.domain..",
            "dev.tally.ports..",
            "dev.tally.adapters..",
            "dev.tally.runtime..",
            "dev.tally.demo..",
            "dev.tally.bench..")
        .allowEmptyShould(false)
        .check(tally);
  }

  @Test
  void theDemoNeverDependsOnTheBench() {
    noClasses()
        .that()
        .resideInAPackage("dev.tally.demo..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.tally.bench..")
        .allowEmptyShould(false)
        .check(tally);
  }

  @Test
  void theBenchNeverDependsOnTheDemo() {
    noClasses()
        .that()
        .resideInAPackage("dev.tally.bench..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.tally.demo..")
        .allowEmptyShould(false)
        .check(tally);
  }

  @Test
  void everyClassOfTheKafkaAdaptersPackageComesFromTheKafkaAdapterModule() {
    String home = codeSourceOf(tally.get(KafkaSourceModule.class));
    classes()
        .that()
        .resideInAPackage("dev.tally.adapters.kafka..")
        .should(
            new ArchCondition<JavaClass>("come from the module of KafkaSourceModule, " + home) {
              @Override
              public void check(JavaClass item, ConditionEvents events) {
                String source = codeSourceOf(item);
                if (!source.equals(home)) {
                  events.add(
                      SimpleConditionEvent.violated(
                          item, item.getName() + " comes from " + source + ": a split package"));
                }
              }
            })
        .allowEmptyShould(false)
        .check(tally);
  }

  /** The jar or class directory a class was imported from. */
  private static String codeSourceOf(JavaClass type) {
    String location = type.getSource().orElseThrow().getUri().toString();
    String path = type.getName().replace('.', '/') + ".class";
    // A jar:file:...!/dev/tally/... or file:.../classes/dev/tally/... location, without the class.
    return location.endsWith(path)
        ? location.substring(0, location.length() - path.length())
        : location;
  }

  @Test
  void theIcebergAdapterNeverSeesAnotherAdapterOrTheRuntime() {
    noClasses()
        .that()
        .resideInAPackage("dev.tally.adapters.iceberg..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.tally.adapters.kafka..", "dev.tally.runtime..", "dev.tally.stack..")
        .allowEmptyShould(false)
        .check(tally);
  }

  @Test
  void productionCodeNeverDependsOnTheLocalStackOrTheApps() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.tally.domain..",
            "dev.tally.ports..",
            "dev.tally.adapters..",
            "dev.tally.runtime..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.tally.stack..", "dev.tally.demo..", "dev.tally.bench..")
        .allowEmptyShould(false)
        .check(tally);
  }

  @Test
  void theKafkaAdapterNeverSeesAnotherAdapterOrTheRuntime() {
    noClasses()
        .that()
        .resideInAPackage("dev.tally.adapters.kafka..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.tally.adapters.iceberg..", "dev.tally.runtime..", "dev.tally.stack..")
        .allowEmptyShould(false)
        .check(tally);
  }

  @Test
  void noConnectorTypeLeaksIntoTheCore() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.tally.domain..", "dev.tally.ports..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.kafka..",
            "org.apache.flink.connector..",
            "org.apache.iceberg..",
            "com.fasterxml..")
        .allowEmptyShould(false)
        .check(tally);
  }

  @Test
  void aConfigIsAValidatedRecordAndNoTallyClassIsCalledOptions() {
    classes()
        .that()
        .resideInAnyPackage(TALLY_MODULES)
        .and()
        .haveSimpleNameEndingWith("Config")
        .should()
        .beAssignableTo(Record.class)
        .because("*Config names one kind of class: a feature's validated value record")
        .allowEmptyShould(false)
        .check(tally);
    noClasses()
        .that()
        .resideInAnyPackage(TALLY_MODULES)
        .should()
        .haveSimpleNameEndingWith("Options")
        .because("*Options are Flink's and the connectors' ConfigOption holders, not Tally's")
        .allowEmptyShould(false)
        .check(tally);
  }
}
