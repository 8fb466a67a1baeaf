package dev.tally.domain.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The domain is pure Java: other code must be able to reuse its jar alone, and its functions must
 * give the same answer on every replay. Every rule below fails when its {@code that()} part matches
 * no class, so none can pass by scanning an empty package.
 */
class DomainArchitectureTest {

  private static JavaClasses domain;

  @BeforeAll
  static void importDomain() {
    domain =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.tally.domain");
    assertThat(domain).as("domain classes found on the class path").hasSizeGreaterThan(15);
  }

  @Test
  void domainClassesDependOnTheJdkAndTheDomainOnly() {
    ArchRule rule =
        classes()
            .that()
            .resideInAPackage("dev.tally.domain..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "dev.tally.domain..")
            .because("the domain jar is reused alone, without Flink, Kafka, Iceberg or Jackson")
            .allowEmptyShould(false);
    rule.check(domain);
  }

  @Test
  void domainCodeNeverReadsAClock() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage("dev.tally.domain..")
            .should()
            .callMethod(System.class, "currentTimeMillis")
            .orShould()
            .callMethod(System.class, "nanoTime")
            .orShould()
            .callMethod(Instant.class, "now")
            .orShould()
            .callMethod(LocalDateTime.class, "now")
            .orShould()
            .callMethod(LocalDate.class, "now")
            .orShould()
            .callMethod(OffsetDateTime.class, "now")
            .orShould()
            .callMethod(ZonedDateTime.class, "now")
            .orShould()
            .dependOnClassesThat()
            .areAssignableTo(Clock.class)
            .because("validation and windowing must decide the same way on every replay")
            .allowEmptyShould(false);
    rule.check(domain);
  }

  @Test
  void domainPackagesFollowTheAgreedLayout() {
    ArchRule rule =
        classes()
            .that()
            .resideInAPackage("dev.tally.domain..")
            .should()
            .resideInAnyPackage(
                "dev.tally.domain.transaction",
                "dev.tally.domain.window",
                "dev.tally.domain.spending",
                "dev.tally.domain.rejection",
                "dev.tally.domain.anomaly")
            .allowEmptyShould(false);
    rule.check(domain);
  }
}
