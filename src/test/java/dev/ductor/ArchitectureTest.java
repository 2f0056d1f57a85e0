package dev.ductor;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.ductor.config.DuctorConfig;
import dev.ductor.guard.SqlWriteScanner;
import dev.ductor.run.RunRows;
import dev.ductor.run.WorkflowRunEntity;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import org.hibernate.Session;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The floors of the server, read from its compiled classes (target/classes): the pure cores import no framework, no
 * two packages import each other (directly or round a longer loop), every table is touched by its owning package
 * only, and the run row has one writer, {@link RunRows}, whose every change is the versioned UPDATE. The client
 * SDK's side (it imports nothing of the server) is {@code sdk/src/test/java/dev/ductor/sdk/SdkDependenciesTest},
 * run by the invoker build of {@code sdk/}.
 *
 * <p>SQL is found by the build's one SQL guard, {@link SqlWriteScanner}, which reads it from the sources (each
 * expression's literals joined as {@code +} joins them, a file's constants put in, anything else marked dynamic) and
 * from the migrations; a text that starts a write must name its table itself. The version checks of every other
 * protected table are that scanner's too, asked by {@code guard/VersionBypassTest}.
 */
@Tag("unit")
class ArchitectureTest {

    static final Path CLASSES = Path.of("target", "classes");
    static final Path MAIN_JAVA = Path.of("src", "main", "java");
    static final Path MIGRATIONS = Path.of("src", "main", "resources", "db", "migration");

    static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPath(CLASSES);

    /** The package that owns each table; its subpackages share it. */
    static final Map<String, String> OWNERS = Map.ofEntries(
            Map.entry("eec_queue_item", "dev.ductor.queue"),
            Map.entry("eec_workflow_run", "dev.ductor.run"),
            Map.entry("eec_run_inbox", "dev.ductor.run"),
            Map.entry("eec_run_transition", "dev.ductor.run"),
            Map.entry("eec_run_watch", "dev.ductor.run.live"),
            Map.entry("eec_workflow_definition", "dev.ductor.workflow"),
            Map.entry("eec_workflow_revision", "dev.ductor.workflow"),
            Map.entry("eec_aggregate_event", "dev.ductor.aggregate"),
            Map.entry("eec_pool", "dev.ductor.aggregate.pool"),
            Map.entry("eec_rule", "dev.ductor.aggregate.rule"),
            Map.entry("eec_schedule", "dev.ductor.aggregate.schedule"),
            Map.entry("eec_bulk_action", "dev.ductor.run.bulk"),
            Map.entry("eec_bulk_action_item", "dev.ductor.run.bulk"),
            Map.entry("eec_fleet_sample", "dev.ductor.fleet"),
            Map.entry("eec_fleet_pod", "dev.ductor.fleet"),
            Map.entry("eec_event", "dev.ductor.aggregate.rule"));

    /**
     * The one statement that needs another owner's table: the pooled claim locks and counts pools in its own snapshot
     * (queue/fairness.md, "Who touches what").
     */
    static final Set<String> EXCEPTIONS = Set.of("dev.ductor.queue.TaskClaim eec_pool");

    static final Pattern TABLE = Pattern.compile("\\beec_[a-z_]+\\b");
    static final Pattern STARTS_A_WRITE = Pattern.compile("(?is)^\\s*(insert|update|delete|merge|truncate|upsert)\\b.*");
    static final Pattern WRITE_KEYWORD = Pattern.compile("(?i)\\b(insert|delete|merge|truncate)\\b|(?<!\\bfor\\s{1,20}(no\\s{1,20}key\\s{1,20})?)\\bupdate\\b");
    static final Pattern READ_START = Pattern.compile("(?is)^\\s*(select|with)\\b.*");
    static final Pattern HQL_READ_START = Pattern.compile("(?is)^\\s*(select|from)\\b.*");

    @Test
    void theCoresImportNoFramework() {
        noClasses().that().resideInAnyPackage("dev.ductor.run.core..", "dev.ductor.aggregate.core..", "dev.ductor.workflow.expr..")
                .should().dependOnClassesThat().resideInAnyPackage("jakarta..", "io.quarkus..", "org.hibernate..")
                .because("the tick, the aggregates' folds and the workflow language's expressions are pure functions, tested"
                        + " without Quarkus or a database")
                .check(MAIN);
    }

    /**
     * The fast paths sit behind two seams (worker/Seams): the settings that choose a strategy are read there alone, so
     * no domain class branches on them, and the group commit's committers are reached only through the grouped strategy.
     * The strategies themselves are package-private to worker/, so nothing outside it can name them.
     */
    @Test
    void theFastPathsAreChosenOnceAndReachedThroughTheirSeams() {
        noClasses().that().doNotHaveFullyQualifiedName("dev.ductor.worker.Seams")
                .should().callMethod(DuctorConfig.class, "commit").orShould().callMethod(DuctorConfig.class, "dispatch")
                .because("ductor.commit.strategy and ductor.dispatch.local choose a strategy once; callers use the seam")
                .check(MAIN);
        noClasses().that().doNotHaveFullyQualifiedName("dev.ductor.worker.GroupedCommits")
                .and().doNotHaveFullyQualifiedName("dev.ductor.worker.Seams")
                .and().doNotHaveFullyQualifiedName("dev.ductor.worker.StepReporter")
                .should().dependOnClassesThat().haveFullyQualifiedName("dev.ductor.worker.StepReporter")
                .orShould().callMethod("dev.ductor.worker.ExternalResults", "submit", "dev.ductor.run.StepReport",
                        "java.lang.String", "java.util.Set")
                .because("results reach the group commit only through worker/CommitStrategy")
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

    /**
     * A string constant naming a table (or, in HQL, an entity) is in the table's owning package; and a constant that
     * starts a write names the table it writes, so a write cannot be assembled from a verb here and a table there.
     */
    @Test
    void everyTableIsTouchedOnlyByItsOwner() {
        Map<String, String> entityOwners = entityOwners();
        Map<String, List<String>> strings = stringConstants();
        List<String> violations = new ArrayList<>();
        Set<String> seen = new TreeSet<>();
        strings.forEach((type, constants) -> {
            String pkg = type.substring(0, type.lastIndexOf('.'));
            for (String constant : constants) {
                Set<String> tables = tablesIn(constant, entityOwners);
                for (String table : tables) {
                    String owner = OWNERS.containsKey(table) ? OWNERS.get(table) : entityOwners.get(table);
                    seen.add(table);
                    if (owner == null) {
                        violations.add(type + " names " + table + ", which has no owner in ArchitectureTest.OWNERS");
                    } else if (!(pkg.equals(owner) || pkg.startsWith(owner + ".")) && !EXCEPTIONS.contains(type + " " + table)) {
                        violations.add(type + " touches " + table + ", owned by " + owner + ": call the owner instead\n      "
                                + oneLine(constant));
                    }
                }
                if (tables.isEmpty() && STARTS_A_WRITE.matcher(constant).matches() && looksLikeSql(constant)) {
                    violations.add(type + " starts a write without naming its table (SQL assembled from pieces?)\n      "
                            + oneLine(constant));
                }
            }
        });
        assertTrue(seen.containsAll(OWNERS.keySet()), "the scan did not find every table in the compiled SQL, so it is not"
                + " reading it: found " + seen);
        assertTrue(violations.isEmpty(), violations.size() + " statement(s) outside their table's owner:\n  "
                + String.join("\n  ", violations));
    }

    /**
     * The run row ({@code eec_workflow_run}) is written by {@link RunRows} alone: elsewhere a statement naming it is a
     * read (it starts with SELECT or WITH, or FROM in HQL, and holds no write), no field of {@link WorkflowRunEntity} is
     * set (a set field is written by the next flush), and no run entity is persisted, merged, removed or bulk-updated.
     * In RunRows, every UPDATE of the row checks and bumps {@code db_record_version}, with no OR to escape the check
     * (of one run by bound parameters, or of many by bound arrays, row by row),
     * the INSERT starts a row at version 0, and there is one DELETE (retention's, whose shape {@link SqlWriteScanner}
     * checks).
     */
    /** One run: its key and the version its tick read, both bound. */
    private static final Pattern ONE_RUN_VERSIONED =
            Pattern.compile("(?is)\\bwhere\\s+run_id\\s*=\\s*\\?\\s+and\\s+db_record_version\\s*=\\s*\\?\\s*$");
    /**
     * Many runs in one statement: each row's key and read version come from bound arrays only (nothing computed from the
     * table), the check is the same equality per row, and the statement returns the ids it wrote, so a run that lost
     * its race is seen as one.
     */
    private static final Pattern RUNS_VERSIONED_FROM_ARRAYS = Pattern.compile("(?is)\\bfrom\\s+unnest\\("
            + "\\s*cast\\(\\s*\\?\\s+as\\s+\\w+\\[\\]\\s*\\)(?:\\s*,\\s*cast\\(\\s*\\?\\s+as\\s+\\w+\\[\\]\\s*\\))*\\s*\\)"
            + "\\s+as\\s+w\\(\\s*id\\s*,\\s*expected_version\\s*,[^)]*\\)"
            + "\\s+where\\s+run_id\\s*=\\s*w\\.id\\s+and\\s+db_record_version\\s*=\\s*w\\.expected_version"
            + "\\s+returning\\s+run_id\\s*$");

    /** A statement that writes (INSERT INTO, UPDATE, DELETE FROM) only tables other than the run table. */
    private static boolean writesOtherTablesOnly(String sql) {
        java.util.regex.Matcher target = Pattern.compile("(?is)\\b(?:insert\\s+into|update|delete\\s+from)\\s+(\\w+)").matcher(sql);
        boolean writes = false;
        while (target.find()) {
            writes = true;
            if (target.group(1).equalsIgnoreCase("eec_workflow_run")) {
                return false;
            }
        }
        return writes && !Pattern.compile("(?is)\\bfor\\s+(no\\s+key\\s+)?update\\b").matcher(sql).find();
    }

    @Test
    void theRunRowIsWrittenOnlyByRunRowsAndOnlyVersioned() {
        String writer = RunRows.class.getName();
        List<String> violations = new ArrayList<>();
        int updates = 0;
        int deletes = 0;
        for (Map.Entry<String, List<String>> entry : stringConstants().entrySet()) {
            String type = entry.getKey();
            for (String constant : entry.getValue()) {
                // A bare name (an entity's @Table) is no statement; a write that gets the name from elsewhere does not
                // name its table, which everyTableIsTouchedOnlyByItsOwner refuses.
                boolean table = Pattern.compile("\\beec_workflow_run\\b").matcher(constant).find() && looksLikeSql(constant);
                boolean entity = Pattern.compile("\\bWorkflowRunEntity\\b").matcher(constant).find() && looksLikeSql(constant);
                if (!table && !entity) {
                    continue;
                }
                if (table && !entity && writesOtherTablesOnly(constant)) {
                    continue; // reads runs to write its own table (a bulk action's items): not a write of the run row
                }
                if (type.equals(writer)) {
                    if (Pattern.compile("(?is)^\\s*update\\b").matcher(constant).find()) {
                        updates++;
                        if (!Pattern.compile("(?is)db_record_version\\s*=\\s*db_record_version\\s*\\+\\s*1").matcher(constant).find()
                                || !(ONE_RUN_VERSIONED.matcher(constant).find() || RUNS_VERSIONED_FROM_ARRAYS.matcher(constant).find())
                                || Pattern.compile("(?i)\\bor\\b").matcher(constant).find()) {
                            violations.add(type + ": an UPDATE of the run row must be WHERE run_id = ? AND db_record_version = ?,"
                                    + " or the same per row of bound arrays (FROM unnest(CAST(? AS ...[]), ...) AS w(id,"
                                    + " expected_version, ...) WHERE run_id = w.id AND db_record_version = w.expected_version"
                                    + " RETURNING run_id), with no OR, and SET db_record_version = db_record_version + 1\n      "
                                    + oneLine(constant));
                        }
                    } else if (Pattern.compile("(?is)^\\s*(with\\b.*\\b)?insert\\s+into\\s+eec_workflow_run\\b").matcher(constant).find()) {
                        // A new run, alone or with its first rows in one statement (WITH ... INSERT): only inserted,
                        // at version 0, never updated or deleted by the same statement.
                        if (!Pattern.compile("(?is)insert\\s+into\\s+eec_workflow_run\\s*\\([^)]*db_record_version[^)]*\\)"
                                        + "\\s*(values|select)\\b.*\\b0\\b").matcher(constant).find()
                                || Pattern.compile("(?is)\\b(update|delete\\s+from)\\s+eec_workflow_run\\b").matcher(constant).find()) {
                            violations.add(type + ": a new run row starts at db_record_version 0\n      " + oneLine(constant));
                        }
                    } else if (Pattern.compile("(?is)^\\s*delete\\b").matcher(constant).find()) {
                        // Its shape, retention's (SqlWriteScanner.RETENTION_DELETE), is the scanner's rule run-delete,
                        // checked on every DELETE of the row wherever it stands (VersionBypassTest); here, that it is one.
                        deletes++;
                    } else if (!READ_START.matcher(constant).matches() || WRITE_KEYWORD.matcher(constant).find()) {
                        violations.add(type + ": neither a read nor the versioned UPDATE or INSERT\n      " + oneLine(constant));
                    }
                } else if (!(table ? READ_START : HQL_READ_START).matcher(constant).matches()
                        || WRITE_KEYWORD.matcher(constant).find()) {
                    violations.add(type + " writes the run row, which only " + writer + " may do\n      " + oneLine(constant));
                }
            }
        }
        assertTrue(updates > 0, "found no UPDATE of the run row in " + writer + ": the scan does not read it");
        assertTrue(deletes == 1, "found " + deletes + " DELETEs of the run row in " + writer + ", expected retention's one");
        assertTrue(violations.isEmpty(), String.join("\n  ", violations));
    }

    @Test
    void noFieldOfALoadedRunIsSetOutsideRunRows() {
        String writer = RunRows.class.getName();
        noClasses().that().doNotHaveFullyQualifiedName(writer).and().doNotHaveFullyQualifiedName(WorkflowRunEntity.class.getName())
                .should().setFieldWhere(DescribedPredicate.describe("a field of WorkflowRunEntity",
                        (JavaFieldAccess access) -> access.getTargetOwner().isEquivalentTo(WorkflowRunEntity.class)))
                .because("a field set on a loaded run is written by the next flush: only RunRows changes a run")
                .check(MAIN);
    }

    @Test
    void noRunEntityIsPersistedMergedOrRemovedOutsideRunRows() {
        String writer = RunRows.class.getName();
        noClasses().that().doNotHaveFullyQualifiedName(writer)
                .should().callMethodWhere(DescribedPredicate.describe("a write of a run entity (Panache, or the"
                                + " EntityManager's or Session's persist/merge/remove in a class that uses WorkflowRunEntity)",
                        (JavaMethodCall call) -> writesARunEntity(call)))
                .check(MAIN);
    }

    /**
     * The run row changes in one way: one UPDATE statement (for one run, arrays of one; for a group commit, many), one
     * INSERT statement, and retention's DELETE, all three constants of {@link RunRows}; no other constant of the code
     * writes the table. The run entity is read-only ({@code @Immutable}) and no class sets a field of it, so Hibernate
     * never flushes a second UPDATE form.
     */
    @Test
    void theRunRowHasOneUpdateOneInsertAndRetentionsDelete() {
        Pattern write = Pattern.compile("(?is)\\b(update\\s+(?:only\\s+)?eec_workflow_run|insert\\s+into\\s+eec_workflow_run"
                + "|delete\\s+from\\s+(?:only\\s+)?eec_workflow_run|merge\\s+into\\s+eec_workflow_run"
                + "|truncate\\s+(?:table\\s+)?(?:only\\s+)?eec_workflow_run)\\b");
        Map<String, List<String>> forms = new TreeMap<>();
        List<String> elsewhere = new ArrayList<>();
        stringConstants().forEach((type, constants) -> {
            for (String constant : constants) {
                Matcher statement = write.matcher(constant);
                while (statement.find()) {
                    String verb = statement.group(1).trim().split("\\s+")[0].toUpperCase();
                    if (type.equals(RunRows.class.getName())) {
                        forms.computeIfAbsent(verb, k -> new ArrayList<>()).add(oneLine(constant));
                    } else {
                        elsewhere.add(type + ": " + oneLine(constant));
                    }
                }
            }
        });
        assertTrue(elsewhere.isEmpty(), "writes of the run row outside RunRows:\n  " + String.join("\n  ", elsewhere));
        assertTrue(forms.keySet().equals(Set.of("UPDATE", "INSERT", "DELETE")), "the run row's write statements are one"
                + " UPDATE, one INSERT and retention's DELETE; found " + forms);
        forms.forEach((verb, statements) -> assertTrue(statements.size() == 1, "one " + verb + " form of the run row,"
                + " its batch twin being the same statement with arrays; found " + statements.size() + ":\n  "
                + String.join("\n  ", statements)));
        assertTrue(WorkflowRunEntity.class.isAnnotationPresent(org.hibernate.annotations.Immutable.class),
                "WorkflowRunEntity must be @Immutable: a flush of a loaded run would be a second UPDATE form");
        noClasses().that().doNotHaveFullyQualifiedName(WorkflowRunEntity.class.getName())
                .should().setFieldWhere(DescribedPredicate.describe("a field of WorkflowRunEntity",
                        (JavaFieldAccess access) -> access.getTargetOwner().isEquivalentTo(WorkflowRunEntity.class)))
                .because("the run entity is read-only: the row changes through RunRows' one UPDATE only")
                .check(MAIN);
    }

    /** A migration never writes the run row but by the versioned UPDATE: a data fix must bump the version too. */
    @Test
    void migrationsWriteTheRunRowOnlyVersioned() throws IOException {
        List<SqlWriteScanner.Violation> violations = new ArrayList<>();
        int read = 0;
        try (Stream<Path> files = Files.list(MIGRATIONS)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".sql")).sorted().toList()) {
                violations.addAll(SqlWriteScanner.scanMigration(file.getFileName().toString(), Files.readString(file)));
                read++;
            }
        }
        assertTrue(read > 0, "no migrations under " + MIGRATIONS.toAbsolutePath());
        assertTrue(violations.isEmpty(), "migrations that write runs around the version check:\n  "
                + String.join("\n  ", violations.stream().map(Object::toString).toList()));
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    static boolean writesARunEntity(JavaMethodCall call) {
        JavaClass target = call.getTargetOwner();
        String name = call.getName();
        if (target.isEquivalentTo(WorkflowRunEntity.class)) {
            return name.startsWith("persist") || name.startsWith("delete") || name.startsWith("update");
        }
        boolean entityManager = target.isAssignableTo(EntityManager.class) || target.isAssignableTo(Session.class);
        return entityManager && Set.of("persist", "merge", "remove", "refresh", "detach").contains(name)
                && call.getOriginOwner().getDirectDependenciesFromSelf().stream()
                .anyMatch(d -> d.getTargetClass().isEquivalentTo(WorkflowRunEntity.class));
    }

    /** The entities by simple name, each owned by its package. */
    static Map<String, String> entityOwners() {
        Map<String, String> owners = new TreeMap<>();
        for (JavaClass type : MAIN) {
            if (type.isAnnotatedWith(Entity.class)) {
                owners.put(type.getSimpleName(), type.getPackageName());
            }
        }
        return owners;
    }

    static Set<String> tablesIn(String constant, Map<String, String> entityOwners) {
        Set<String> tables = new TreeSet<>();
        Matcher table = TABLE.matcher(constant);
        while (table.find()) {
            tables.add(table.group());
        }
        if (looksLikeSql(constant)) {
            for (String entity : entityOwners.keySet()) {
                if (Pattern.compile("\\b" + entity + "\\b").matcher(constant).find()) {
                    tables.add(entity);
                }
            }
        }
        return tables;
    }

    static boolean looksLikeSql(String constant) {
        return Pattern.compile("(?i)\\b(select|from|update|delete|insert|into|set|where|merge|truncate)\\b").matcher(constant).find();
    }

    static String oneLine(String constant) {
        String line = constant.replaceAll("\\s+", " ").trim();
        return line.length() > 160 ? line.substring(0, 160) + "..." : line;
    }

    /**
     * Per main class (binary name of its top-level class), its SQL texts as {@link SqlWriteScanner} finds them in the
     * source: every string the class builds, literals joined where {@code +} joins them.
     */
    static Map<String, List<String>> stringConstants() {
        return SqlWriteScanner.sqlByType(MAIN_JAVA);
    }
}
