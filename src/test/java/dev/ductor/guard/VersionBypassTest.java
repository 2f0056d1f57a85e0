package dev.ductor.guard;

import jakarta.persistence.Column;
import jakarta.persistence.Version;
import org.hibernate.annotations.Immutable;
import org.hibernate.annotations.OptimisticLock;
import org.hibernate.annotations.OptimisticLockType;
import org.hibernate.annotations.OptimisticLocking;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Fails the build when main code could write a run, a workflow definition, a pool or rule projection, or an event
 * without the optimistic-locking check: an UPDATE without {@code db_record_version = ?} in its WHERE, a bulk update,
 * a DELETE of runs, any change to an append-only event table or an immutable revision, a Panache or Criteria bulk
 * operation, an upsert. The allowed path for runs and definitions is Hibernate's own versioned UPDATE of their
 * {@code @Version} entities, which is checked here by reflection. Plain JUnit: no application, no database.
 *
 * <p>The scanner ({@link SqlWriteScanner}) checks itself against known bad and good snippets, so it cannot rot into
 * a scanner that passes everything.
 *
 * <p>The same scanner gives {@code dev.ductor.ArchitectureTest} the SQL it checks for the run row (one writer,
 * {@code RunRows}; every other class only reads the row; every UPDATE checks and bumps the version, with no OR; the
 * migrations write it only so) and for table ownership: one way of finding SQL for every rule about it.
 */
@Tag("unit")
class VersionBypassTest {

    private static final Path MAIN_JAVA = Path.of("src/main/java");
    private static final Path RESOURCES = Path.of("src/main/resources");
    private static final Path MIGRATIONS = RESOURCES.resolve("db/migration");

    // ---- the real code -------------------------------------------------------------------------------------------

    @Test
    void mainCodeWritesRunsDefinitionsAndAggregatesOnlyWithTheVersionCheck() {
        SqlWriteScanner.Schema schema = realSchema();
        SqlWriteScanner scanner = new SqlWriteScanner(schema);
        List<SqlWriteScanner.Violation> violations = new ArrayList<>();
        for (Path file : files(MAIN_JAVA, ".java")) {
            violations.addAll(scanner.scanJava(MAIN_JAVA.relativize(file).toString(), read(file)));
        }
        for (Path file : files(RESOURCES, ".sql", ".xml")) {
            if (!file.startsWith(MIGRATIONS)) {
                violations.addAll(scanner.scanSqlFile(RESOURCES.relativize(file).toString(), read(file)));
            }
        }
        System.out.println("[version bypass] scanned " + scanner.files + " files, " + scanner.literals + " string literals;"
                + " versioned tables " + schema.versioned.keySet() + ", event tables "
                + schema.tables.stream().filter(schema::isEventTable).toList() + ", immutable " + schema.immutable
                + "; writes seen on them: " + scanner.seen);
        // The scan must have understood the real code, or a broken lexer would pass everything.
        assertTrue(scanner.files > 50, "scanned only " + scanner.files + " files under " + MAIN_JAVA.toAbsolutePath());
        assertTrue(scanner.literals > 200, "found only " + scanner.literals + " string literals");
        assertTrue(scanner.seen.contains("INSERT eec_workflow_run") && scanner.seen.contains("INSERT eec_workflow_definition"),
                "the scanner did not recognise the known INSERTs of runs and definitions (RunStarter, WorkflowService text"
                        + " blocks), so it is not reading the SQL in the code: " + scanner.seen);
        assertTrue(violations.isEmpty(), violations.size() + " write(s) that could bypass the version check:\n  "
                + violations.stream().map(Object::toString).collect(Collectors.joining("\n  ")));
    }

    @Test
    void theSchemaKnowsWhatToProtect() {
        SqlWriteScanner.Schema schema = realSchema();
        assertTrue(schema.versioned.containsKey("eec_workflow_run"), "versioned tables " + schema.versioned.keySet());
        assertTrue(schema.versioned.containsKey("eec_workflow_definition"), "versioned tables " + schema.versioned.keySet());
        assertTrue(schema.versioned.get("eec_workflow_run").contains(List.of("run_id")), "keys of runs "
                + schema.versioned.get("eec_workflow_run"));
        assertTrue(schema.versioned.get("eec_workflow_definition").contains(List.of("tenant", "name")),
                "keys of definitions " + schema.versioned.get("eec_workflow_definition"));
        assertEquals("eec_workflow_run", schema.entities.get("workflowrunentity"), "entities " + schema.entities);
        assertEquals("eec_workflow_definition", schema.entities.get("workflowdefinitionentity"), "entities " + schema.entities);
    }

    /**
     * Hibernate's versioned UPDATE is the allowed write path, so the entities must really be versioned on the column
     * the contract names, and no field may be excluded from the check. Any other entity mapped onto a versioned table
     * must be versioned the same way (a second, unversioned mapping of the run row would be a bypass), and entities of
     * event or revision tables must be immutable.
     */
    @Test
    void versionedEntitiesCarryDbRecordVersionAsTheirJpaVersion() throws Exception {
        assertVersioned(dev.ductor.run.WorkflowRunEntity.class, "eec_workflow_run");
        assertVersioned(dev.ductor.workflow.WorkflowDefinitionEntity.class, "eec_workflow_definition");
        SqlWriteScanner.Schema schema = realSchema();
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Class<?>> entity : entityClasses().entrySet()) {
            Class<?> type = entity.getValue();
            String table = schema.entities.get(type.getSimpleName().toLowerCase());
            if (schema.versioned.containsKey(table)) {
                try {
                    assertVersioned(type, table);
                } catch (AssertionError e) {
                    problems.add(e.getMessage());
                }
            } else if ((schema.isEventTable(table) || schema.immutable.contains(table)) && !type.isAnnotationPresent(Immutable.class)) {
                problems.add(type.getName() + " maps " + table + ", whose rows are never changed, but is not @Immutable");
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    private static void assertVersioned(Class<?> type, String table) {
        jakarta.persistence.Table mapped = type.getAnnotation(jakarta.persistence.Table.class);
        assertTrue(mapped != null && mapped.name().equals(table), type.getName() + " must map " + table);
        List<Field> versions = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (field.isAnnotationPresent(Version.class)) {
                    versions.add(field);
                }
                OptimisticLock lock = field.getAnnotation(OptimisticLock.class);
                if (lock != null && lock.excluded()) {
                    fail(type.getName() + "." + field.getName() + " is @OptimisticLock(excluded = true): changing it would"
                            + " not bump db_record_version, so a concurrent edit of it is lost unseen");
                }
            }
        }
        assertEquals(1, versions.size(), type.getName() + " must have exactly one @jakarta.persistence.Version field, has " + versions);
        Field version = versions.get(0);
        Column column = version.getAnnotation(Column.class);
        String name = column != null && !column.name().isEmpty() ? column.name() : version.getName();
        assertEquals("db_record_version", name, type.getName() + "." + version.getName() + " must map column db_record_version");
        assertTrue(version.getType() == long.class || version.getType() == Long.class || version.getType() == int.class
                || version.getType() == Integer.class, type.getName() + "." + version.getName() + " must be a number, is " + version.getType());
        OptimisticLocking locking = type.getAnnotation(OptimisticLocking.class);
        assertTrue(locking == null || locking.type() == OptimisticLockType.VERSION,
                type.getName() + " is @OptimisticLocking(" + (locking == null ? "" : locking.type()) + "), not VERSION");
    }

    // ---- the scanner checks itself -------------------------------------------------------------------------------

    /** The schema of the snippets: fixed here, so the self-check does not depend on the real migrations. */
    private static SqlWriteScanner.Schema snippetSchema() {
        SqlWriteScanner.Schema schema = new SqlWriteScanner.Schema();
        SqlWriteScanner.learnMigration(schema, """
                CREATE TABLE eec_workflow_definition (id uuid PRIMARY KEY, tenant text NOT NULL, name text NOT NULL,
                    revision integer NOT NULL, db_record_version bigint NOT NULL DEFAULT 0,
                    CONSTRAINT uq_workflow_definition_name UNIQUE (tenant, name));
                CREATE TABLE eec_workflow_revision (tenant text, name text, revision integer, definition jsonb,
                    PRIMARY KEY (tenant, name, revision));
                CREATE TABLE eec_workflow_run (run_id uuid PRIMARY KEY, tenant text NOT NULL, status text NOT NULL,
                    tier text NOT NULL DEFAULT 'standard', db_record_version bigint NOT NULL DEFAULT 0, idempotency_key text,
                    CONSTRAINT ck_status CHECK (status IN ('RUNNING', 'FAILED')));
                CREATE UNIQUE INDEX uq_run_idempotency ON eec_workflow_run (tenant, idempotency_key) WHERE idempotency_key IS NOT NULL;
                CREATE TABLE eec_queue_item (id bigserial PRIMARY KEY, run_id uuid NOT NULL, tier text NOT NULL);
                CREATE TABLE eec_aggregate_event (id bigserial PRIMARY KEY, aggregate_id text NOT NULL, version bigint NOT NULL,
                    payload jsonb NOT NULL, CONSTRAINT uq_aggregate_event_version UNIQUE (aggregate_id, version));
                CREATE TABLE eec_pool (tenant text NOT NULL, name text NOT NULL, capacity integer NOT NULL,
                    db_record_version bigint NOT NULL, PRIMARY KEY (tenant, name));
                CREATE TABLE eec_event (event_id uuid PRIMARY KEY, tenant text NOT NULL, outcome jsonb);
                """);
        SqlWriteScanner.learnEntity(schema, "@Entity @Table(name = \"eec_workflow_run\") public class WorkflowRunEntity {}");
        SqlWriteScanner.learnEntity(schema, "@Entity @Table(name = \"eec_workflow_definition\") public class WorkflowDefinitionEntity {}");
        SqlWriteScanner.learnEntity(schema, "@Entity @Table(name = \"eec_workflow_revision\") public class WorkflowRevisionEntity {}");
        return schema;
    }

    private static String inMethod(String body) {
        return "package x;\nclass Snippet {\n    void write() {\n" + body + "\n    }\n}\n";
    }

    /** Each snippet is a bypass; the scanner must name it with the expected rule. */
    @Test
    void theScannerFlagsEveryKnownKindOfBypass() {
        Map<String, String[]> bad = new LinkedHashMap<>();
        bad.put("an UPDATE of a run without the version", new String[] {"no-version-predicate", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_workflow_run SET status = ?1 WHERE run_id = ?2\").executeUpdate();")});
        bad.put("a version bumped in SET but never compared", new String[] {"no-version-predicate", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_workflow_run SET status = ?1, db_record_version = db_record_version + 1"
                        + " WHERE run_id = ?2\").executeUpdate();")});
        bad.put("a predicate that compares the column with itself", new String[] {"no-version-predicate", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_workflow_run SET status = ?1 WHERE run_id = ?2"
                        + " AND db_record_version = db_record_version\").executeUpdate();")});
        bad.put("a version compared with >= (not the version read)", new String[] {"no-version-predicate", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_workflow_run SET status = ?1 WHERE run_id = ?2"
                        + " AND db_record_version >= ?3\").executeUpdate();")});
        bad.put("JPQL in a text block", new String[] {"no-version-predicate", inMethod("""
                int n = em.createQuery(\"""
                        UPDATE WorkflowRunEntity r
                           SET r.status = :status
                         WHERE r.runId = :id\""").executeUpdate();""")});
        bad.put("an UPDATE split over concatenated literals", new String[] {"no-version-predicate", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_workflow_definition SET revision = ?1\"\n"
                        + "        + \" WHERE id = ?2\").executeUpdate();")});
        bad.put("the table name from a constant", new String[] {"no-version-predicate",
                "class Snippet {\n    private static final String RUNS = \"eec_workflow_run\";\n    void write() {\n"
                        + "        int n = em.createNativeQuery(\"UPDATE \" + RUNS + \" SET status = ?1 WHERE run_id = ?2\").executeUpdate();\n"
                        + "    }\n}\n"});
        bad.put("a quoted, schema-qualified table", new String[] {"no-version-predicate", inMethod(
                "int n = em.createNativeQuery(\"UPDATE public.\\\"eec_workflow_run\\\" SET status = 'FAILED' WHERE run_id = ?1\").executeUpdate();")});
        bad.put("a bulk UPDATE that checks a version", new String[] {"bulk", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_workflow_run SET status = 'FAILED' WHERE status = 'RUNNING'"
                        + " AND db_record_version = ?1\").executeUpdate();")});
        bad.put("an UPDATE of every run", new String[] {"bulk", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_workflow_run SET tier = 'bulk'\").executeUpdate();")});
        bad.put("an UPDATE of a set of runs", new String[] {"bulk", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_workflow_run SET tier = ?1 WHERE run_id = ANY(?2)"
                        + " AND db_record_version = ?3\").executeUpdate();")});
        bad.put("an UPDATE of a projection without the version", new String[] {"no-version-predicate", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_pool SET capacity = ?3 WHERE tenant = ?1 AND name = ?2\").executeUpdate();")});
        bad.put("a DELETE of a run", new String[] {"run-delete", inMethod(
                "int n = em.createNativeQuery(\"DELETE FROM eec_workflow_run WHERE run_id = ?1 AND db_record_version = ?2\").executeUpdate();")});
        bad.put("a DELETE of runs that may be running", new String[] {"run-delete", inMethod(
                "int n = em.createNativeQuery(\"DELETE FROM eec_workflow_run WHERE run_id = ?1 AND db_record_version = ?2"
                        + " AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') OR status = 'RUNNING'\").executeUpdate();")});
        bad.put("a DELETE of finished runs without the version", new String[] {"run-delete", inMethod(
                "int n = em.createNativeQuery(\"DELETE FROM eec_workflow_run WHERE run_id = ?1"
                        + " AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')\").executeUpdate();")});
        bad.put("a JPQL DELETE of runs", new String[] {"run-delete", inMethod(
                "int n = em.createQuery(\"DELETE FROM WorkflowRunEntity WHERE status = 'CANCELLED'\").executeUpdate();")});
        bad.put("a run removed through its entity", new String[] {"run-delete", inMethod(
                "WorkflowRunEntity run = em.find(WorkflowRunEntity.class, id);\n        em.remove(run);")});
        bad.put("an UPDATE of an aggregate's events", new String[] {"append-only", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_aggregate_event SET payload = CAST(?1 AS jsonb)"
                        + " WHERE aggregate_id = ?2 AND version = ?3\").executeUpdate();")});
        bad.put("a DELETE of an aggregate's events", new String[] {"append-only", inMethod(
                "em.createNativeQuery(\"DELETE FROM eec_aggregate_event WHERE aggregate_id = ?1\").executeUpdate();")});
        bad.put("an event row overwritten (not a set-once fill)", new String[] {"append-only", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_event SET outcome = CAST(?1 AS jsonb) WHERE event_id = ?2\").executeUpdate();")});
        bad.put("a TRUNCATE of runs", new String[] {"truncate", inMethod(
                "em.createNativeQuery(\"TRUNCATE eec_workflow_run CASCADE\").executeUpdate();")});
        bad.put("an upsert of a run", new String[] {"upsert", inMethod(
                "em.createNativeQuery(\"INSERT INTO eec_workflow_run (run_id, status) VALUES (?1, ?2)"
                        + " ON CONFLICT (run_id) DO UPDATE SET status = EXCLUDED.status\").executeUpdate();")});
        bad.put("an accepted revision rewritten", new String[] {"immutable", inMethod(
                "int n = em.createNativeQuery(\"UPDATE eec_workflow_revision SET definition = ?1 WHERE tenant = ?2"
                        + " AND name = ?3 AND revision = ?4\").executeUpdate();")});
        bad.put("a Panache bulk update of runs", new String[] {"panache-bulk", inMethod(
                "WorkflowRunEntity.update(\"status = ?1 where runId = ?2\", \"FAILED\", id);")});
        bad.put("a Panache bulk delete of definitions", new String[] {"panache-bulk", inMethod(
                "long gone = WorkflowDefinitionEntity.delete(\"name\", name);")});
        bad.put("a Panache repository's bulk update", new String[] {"panache-bulk",
                "class Runs implements PanacheRepository<WorkflowRunEntity> {\n    void fail() {\n"
                        + "        update(\"status = 'FAILED' where status = 'RUNNING'\");\n    }\n}\n"});
        bad.put("a Criteria bulk update", new String[] {"criteria-bulk", inMethod(
                "CriteriaUpdate<WorkflowRunEntity> update = cb.createCriteriaUpdate(WorkflowRunEntity.class);")});
        bad.put("a versioned UPDATE whose zero rows nobody notices", new String[] {"unchecked-row-count", inMethod(
                "em.createNativeQuery(\"UPDATE eec_workflow_run SET status = ?1 WHERE run_id = ?2 AND db_record_version = ?3\")\n"
                        + "        .setParameter(1, s).executeUpdate();")});
        bad.put("a table chosen at run time", new String[] {"dynamic-target", inMethod(
                "int n = em.createNativeQuery(\"UPDATE \" + table + \" SET status = ?1 WHERE run_id = ?2\").executeUpdate();")});
        bad.put("a formatted table name", new String[] {"dynamic-target", inMethod(
                "int n = em.createNativeQuery(\"UPDATE %s SET status = ?1 WHERE run_id = ?2\".formatted(t)).executeUpdate();")});
        bad.put("a bypass after a char literal holding a quote", new String[] {"no-version-predicate", inMethod(
                "char quote = '\"';\n        int n = em.createNativeQuery(\"UPDATE eec_workflow_run SET status = ?1 WHERE run_id = ?2\").executeUpdate();")});

        List<String> missed = new ArrayList<>();
        for (Map.Entry<String, String[]> snippet : bad.entrySet()) {
            List<SqlWriteScanner.Violation> found = new SqlWriteScanner(snippetSchema()).scanJava("Snippet.java", snippet.getValue()[1]);
            if (found.stream().noneMatch(v -> v.rule().equals(snippet.getValue()[0]))) {
                missed.add(snippet.getKey() + ": expected rule " + snippet.getValue()[0] + ", found " + found);
            }
        }
        List<SqlWriteScanner.Violation> sqlFile = new SqlWriteScanner(snippetSchema()).scanSqlFile("import.sql",
                "-- UPDATE eec_workflow_run in a comment is fine\nINSERT INTO eec_queue_item (id) VALUES (1);\n"
                        + "UPDATE eec_workflow_run SET status = 'FAILED';\n");
        if (sqlFile.size() != 1 || sqlFile.get(0).line() != 3) {
            missed.add("an UPDATE in an .sql file, line 3: found " + sqlFile);
        }
        assertTrue(missed.isEmpty(), "the scanner missed known bypasses:\n  " + String.join("\n  ", missed));
    }

    @Test
    void theScannerNamesTheFileAndLineOfTheStatement() {
        String source = inMethod("""
                        int n = em.createQuery(\"""
                                SELECT 1
                                  FROM WorkflowRunEntity;
                                UPDATE WorkflowRunEntity r
                                   SET r.status = :status
                                 WHERE r.runId = :id\""").executeUpdate();""");
        List<SqlWriteScanner.Violation> found = new SqlWriteScanner(snippetSchema()).scanJava("x/Snippet.java", source);
        assertEquals(1, found.size(), found.toString());
        assertEquals("x/Snippet.java", found.get(0).file());
        int expected = source.lines().toList().indexOf(source.lines().filter(l -> l.contains("UPDATE WorkflowRunEntity")).findFirst().orElseThrow()) + 1;
        assertEquals(expected, found.get(0).line(), found.toString());
    }

    /** The allowed shapes must pass, or the check would be switched off by the first person it wrongly blocks. */
    @Test
    void theScannerLetsTheAllowedWritesThrough() {
        List<String> good = List.of(
                inMethod("int n = em.createNativeQuery(\"UPDATE eec_workflow_run SET status = ?1, db_record_version = db_record_version + 1"
                        + " WHERE run_id = ?2 AND db_record_version = ?3\").executeUpdate();\n        if (n != 1) throw new IllegalStateException();"),
                inMethod("return em.createQuery(\"UPDATE WorkflowRunEntity r SET r.status = :s, r.dbRecordVersion = r.dbRecordVersion + 1"
                        + " WHERE r.runId = :id AND r.dbRecordVersion = :v\").executeUpdate() == 1;"),
                inMethod("""
                        return em.createNativeQuery(\"""
                                UPDATE eec_pool SET capacity = ?3, db_record_version = ?5
                                 WHERE tenant = ?1 AND name = ?2 AND db_record_version = ?7\""")
                                .setParameter(1, tenant)
                                .executeUpdate() == 1;"""),
                inMethod("int recorded = em.createNativeQuery(\"UPDATE eec_event SET outcome = CAST(?1 AS jsonb)"
                        + " WHERE event_id = ?2 AND outcome IS NULL\").executeUpdate();"),
                inMethod("var rows = em.createNativeQuery(\"SELECT * FROM eec_workflow_run WHERE run_id = ?1 FOR UPDATE SKIP LOCKED\").getResultList();"),
                inMethod("var rows = em.createNativeQuery(\"SELECT * FROM eec_workflow_run WHERE run_id = ?1 FOR NO KEY UPDATE\").getResultList();"),
                inMethod("em.createNativeQuery(\"UPDATE eec_queue_item SET tier = ?2 WHERE run_id = ?1\").executeUpdate();"),
                inMethod("em.createNativeQuery(\"DELETE FROM eec_queue_item WHERE run_id = ?1\").executeUpdate();"),
                inMethod("var gone = em.createNativeQuery(\"DELETE FROM eec_workflow_run USING unnest(CAST(? AS uuid[]),"
                        + " CAST(? AS bigint[])) AS w(id, expected_version) WHERE run_id = w.id"
                        + " AND db_record_version = w.expected_version AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')"
                        + " RETURNING run_id\").getResultList();"),
                inMethod("int n = em.createNativeQuery(\"INSERT INTO eec_workflow_run (run_id) VALUES (?1) ON CONFLICT DO NOTHING\").executeUpdate();"),
                inMethod("int n = em.createNativeQuery(\"INSERT INTO eec_aggregate_event (aggregate_id, version, payload) VALUES (?1, ?2, ?3)"
                        + " ON CONFLICT (aggregate_id, version) DO NOTHING\").executeUpdate();"),
                inMethod("// em.createNativeQuery(\"UPDATE eec_workflow_run SET status = 'X'\").executeUpdate();\n"
                        + "        /* UPDATE eec_workflow_run SET status = 'X' */ int x = 1;"),
                "/** Every flush is {@code UPDATE eec_workflow_run ... WHERE run_id = ?}. */\nclass Documented {}\n",
                inMethod("throw new IllegalStateException(\"could not update the run\");"),
                inMethod("String sql = \"UPDATE eec_queue_item SET x = 1 WHERE id = ?\"; char c = '\"'; String t = \"ok\";"));
        List<String> wronglyFlagged = new ArrayList<>();
        for (String snippet : good) {
            List<SqlWriteScanner.Violation> found = new SqlWriteScanner(snippetSchema()).scanJava("Good.java", snippet);
            if (!found.isEmpty()) {
                wronglyFlagged.add(found + " in:\n" + snippet);
            }
        }
        assertTrue(wronglyFlagged.isEmpty(), "allowed writes flagged:\n" + String.join("\n", wronglyFlagged));
        assertFalse(snippetSchema().versioned.isEmpty());
    }

    // ---- files ---------------------------------------------------------------------------------------------------

    private static SqlWriteScanner.Schema realSchema() {
        SqlWriteScanner.Schema schema = new SqlWriteScanner.Schema();
        Comparator<Path> byVersion = Comparator.comparing(p -> migrationVersion(p.getFileName().toString()));
        for (Path migration : files(MIGRATIONS, ".sql").stream().sorted(byVersion).toList()) {
            SqlWriteScanner.learnMigration(schema, read(migration));
        }
        for (Path file : files(MAIN_JAVA, ".java")) {
            SqlWriteScanner.learnEntity(schema, read(file));
        }
        return schema;
    }

    /** Flyway's order: V2 before V10 (the ALTERs of a later migration must see the tables of earlier ones). */
    private static long migrationVersion(String name) {
        Matcher m = Pattern.compile("^V(\\d+)").matcher(name);
        return m.find() ? Long.parseLong(m.group(1)) : Long.MAX_VALUE;
    }

    private static Map<String, Class<?>> entityClasses() throws ClassNotFoundException {
        Map<String, Class<?>> entities = new LinkedHashMap<>();
        for (Path file : files(MAIN_JAVA, ".java")) {
            String source = read(file);
            if (source.contains("@Entity")) {
                String name = MAIN_JAVA.relativize(file).toString().replace('/', '.').replaceAll("\\.java$", "");
                entities.put(name, Class.forName(name));
            }
        }
        return entities;
    }

    private static List<Path> files(Path root, String... suffixes) {
        if (!Files.isDirectory(root)) {
            throw new AssertionError(root.toAbsolutePath() + " is not a directory (the test runs from the project root)");
        }
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> Stream.of(suffixes).anyMatch(s -> p.toString().endsWith(s)))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
