package dev.ductor.sdk;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The SDK is a small library users put into their own applications: it may depend on the JDK, Jackson, SLF4J and
 * (optionally) Micrometer, and on nothing of the server: no {@code dev.ductor} server package, no Quarkus, no Jakarta.
 */
@Tag("unit")
class SdkDependenciesTest {

    private static final JavaClasses SDK = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPath(java.nio.file.Path.of("target", "classes"));

    @Test
    void theSdkDependsOnlyOnTheJdkJacksonSlf4jAndMicrometer() {
        classes().should().onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "javax..", "com.fasterxml.jackson..", "org.slf4j..", "io.micrometer..", "dev.ductor.sdk..")
                .check(SDK);
    }

    @Test
    void noServerQuarkusOrJakartaClassIsUsed() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("dev.ductor.api..", "dev.ductor.run..", "dev.ductor.queue..", "dev.ductor.worker..",
                        "dev.ductor.workflow..", "dev.ductor.aggregate..", "dev.ductor.config..", "dev.ductor.error..",
                        "dev.ductor.security..", "dev.ductor.embedded..", "dev.ductor.metrics..", "io.quarkus..", "jakarta..",
                        "io.vertx..", "org.eclipse.microprofile..")
                .check(SDK);
    }

    @Test
    void theClientDoesNotDependOnTheWorker() {
        noClasses().that().resideInAPackage("dev.ductor.sdk").should().dependOnClassesThat().resideInAPackage("dev.ductor.sdk.worker..")
                .check(SDK);
    }
}
