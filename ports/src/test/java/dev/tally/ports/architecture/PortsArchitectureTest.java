package dev.tally.ports.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ports speak the domain's language and Flink's DataStream API; no connector type may leak into
 * them. The serializers of domain types ({@code dev.tally.ports.types}) see Flink's type
 * serialization API besides; the configuration declarations ({@code dev.tally.ports.config}) see
 * the JDK only.
 */
class PortsArchitectureTest {

  private static JavaClasses ports;

  @BeforeAll
  static void importPorts() {
    ports =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.tally.ports");
    assertThat(ports).as("port classes found on the class path").hasSizeGreaterThanOrEqualTo(4);
  }

  @Test
  void portsDependOnTheDomainAndTheDataStreamApiOnly() {
    classes()
        .that()
        .resideInAPackage("dev.tally.ports..")
        .and()
        .resideOutsideOfPackage("dev.tally.ports.types..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "dev.tally.domain..",
            "dev.tally.ports..",
            "org.apache.flink.streaming.api.datastream..",
            "org.apache.flink.streaming.api.environment..")
        .because("a port names what it does for the core, never the technology behind it")
        .allowEmptyShould(false)
        .check(ports);
  }

  @Test
  void typeSerializersDependOnTheDomainAndFlinksTypeSerializationApiOnly() {
    classes()
        .that()
        .resideInAPackage("dev.tally.ports.types..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "dev.tally.domain..",
            "dev.tally.ports.types..",
            "org.apache.flink.api.common.serialization..",
            "org.apache.flink.api.common.typeinfo..",
            "org.apache.flink.api.common.typeutils..",
            "org.apache.flink.core.memory..",
            "org.apache.flink.types..")
        .because(
            "the serializers of domain types are shared by every adapter and the runtime, so they"
                + " must not know any of them")
        .allowEmptyShould(false)
        .check(ports);
  }

  @Test
  void configurationDeclarationsDependOnTheJdkOnly() {
    classes()
        .that()
        .resideInAPackage("dev.tally.ports.config..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "dev.tally.ports.config..")
        .because(
            "every adapter and the runtime declare their keys with these types, so they must not"
                + " know any of them, nor any technology")
        .allowEmptyShould(false)
        .check(ports);
  }

  @Test
  void portsAreInterfacesOrTheirValueTypes() {
    classes()
        .that()
        .resideInAPackage("dev.tally.ports..")
        .and()
        .resideOutsideOfPackage("dev.tally.ports.types..")
        .and()
        .resideOutsideOfPackage("dev.tally.ports.config..")
        .and()
        .haveSimpleNameNotEndingWith("Streams")
        .should()
        .beInterfaces()
        .allowEmptyShould(false)
        .check(ports);
  }

  @Test
  void incomingAndOutgoingPortsLiveInTheirPackages() {
    classes()
        .that()
        .haveSimpleNameEndingWith("Source")
        .should()
        .resideInAPackage("dev.tally.ports.in")
        .allowEmptyShould(false)
        .check(ports);
    classes()
        .that()
        .haveSimpleNameEndingWith("Sink")
        .should()
        .resideInAPackage("dev.tally.ports.out")
        .allowEmptyShould(false)
        .check(ports);
  }
}
