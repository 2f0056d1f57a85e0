package dev.ductor;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The floors of the server, read from its compiled classes (target/classes): the pure cores import no framework,
 * no two packages import each other (directly or round a longer loop), and the run row has one writer. The client
 * SDK's side (it imports nothing of the server) is {@code sdk/src/test/java/dev/ductor/sdk/SdkDependenciesTest},
 * run by the invoker build of {@code sdk/}.
 */
@Tag("unit")
class ArchitectureTest {

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPath(Path.of("target", "classes"));

    @Test
    void theCoresImportNoFramework() {
        noClasses().that().resideInAnyPackage("dev.ductor.run.core..", "dev.ductor.aggregate.core..")
                .should().dependOnClassesThat().resideInAnyPackage("jakarta..", "io.quarkus..", "org.hibernate..")
                .because("the tick and the aggregates' folds are pure functions, tested without Quarkus or a database")
                .check(MAIN);
    }

    /** Every package is a slice of its own, subpackages included: {@code run} and {@code run.core} are two. */
    @Test
    void packagesFormNoCycle() {
        slices().matching("dev.ductor.(**)").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void theServerImportsNothingOfTheClientSdkOrCli() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("dev.ductor.sdk..", "dev.ductor.cli..")
                .check(MAIN);
    }
}
