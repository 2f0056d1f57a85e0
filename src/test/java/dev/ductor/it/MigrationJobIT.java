package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.smallrye.jwt.build.Jwt;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The per-release migration Job of {@code kubernetes/job-migrate.yaml}, run for real: the packaged app in the prod
 * profile with exactly the environment that manifest gives its container (its literal {@code env} values, the
 * ConfigMap of {@code configmap.yaml} through {@code envFrom}, the Secret values replaced by this test's
 * PostgreSQL, a mounted JWT key by a PEM generated here, {@code JAVA_OPTS_APPEND} passed to the JVM as the image's
 * launcher would, a free HTTP port on 127.0.0.1 added). The server pods get the environment of
 * {@code kubernetes/deployment.yaml} the same way.
 *
 * <ol>
 *   <li>On an empty database the Job migrates every script of {@code db/migration} and exits 0 without ever
 *       listening on its HTTP port or starting the coordinator and workers.</li>
 *   <li>A second run is a no-op that also exits 0: {@code flyway_schema_history} is unchanged.</li>
 *   <li>A server pod (migrate-at-start off) on the migrated database becomes ready and completes a run, with a
 *       token signed by the key the manifest mounts.</li>
 *   <li>Two Jobs at once on a fresh database both exit 0 and apply each version once (Flyway's lock).</li>
 *   <li>A migration that fails makes the Job exit non-zero, naming the script and the cause, and is rolled back.</li>
 *   <li>A server pod on a database no Job migrated fails its start-up with a non-zero exit that names the missing
 *       table, instead of serving.</li>
 * </ol>
 *
 * <p>Alone: {@code ./mvnw verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=MigrationJobIT}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("it")
class MigrationJobIT {

    private static final String SUITE = "MigrationJobIT";
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(120);
    private static final Path MANIFESTS = Path.of("kubernetes");
    private static final Path MIGRATIONS = Path.of("src/main/resources/db/migration");
    private static final Pattern MIGRATION_FILE = Pattern.compile("V([0-9._]+)__(.+)\\.sql");
    private static final String HISTORY = """
            SELECT installed_rank, version, description, type, script, checksum, success, installed_on
              FROM flyway_schema_history ORDER BY installed_rank""";

    /** The database the Job migrates and the server then uses (tests 1 to 3). */
    private static final String RELEASE_DB = "ductor_release";
    /**
     * The server pods' login (Secret ductor-db): DML only, set up as kubernetes/README.md, "Database roles", says. The
     * Job logs in as the schema's owner (Secret ductor-db-owner), here the superuser.
     */
    private static final String APP_ROLE = "ductor_app";
    private static final List<String> APP_ROLE_GRANTS = List.of(
            "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
            "GRANT USAGE ON SCHEMA public TO " + APP_ROLE,
            "ALTER DEFAULT PRIVILEGES FOR ROLE postgres IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO " + APP_ROLE,
            "ALTER DEFAULT PRIVILEGES FOR ROLE postgres IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO " + APP_ROLE);

    private static ItPostgres pg;
    private static Pods pods;
    private static Path keyDir;
    private static PrivateKey signingKey;
    private static Sql releaseDb;
    private static List<Map<String, String>> historyAfterFirstJob;
    private static long suiteStarted;
    /** Stand-ins for the manifests' emptyDir volumes, deleted at the end. */
    private static final List<Path> scratch = new ArrayList<>();

    @BeforeAll
    static void startPostgresAndKey() throws Exception {
        suiteStarted = System.nanoTime();
        Path dir = Pods.workDir("migration-job-it");
        Pods.deleteOldLogs(dir);
        pg = ItPostgres.start(false);
        pg.sql().update("CREATE ROLE " + APP_ROLE + " LOGIN");
        pods = new Pods(SUITE, dir, null); // no JDBC URL of its own: launchWithEnv gets it from the manifests' env
        // The key pair of "the identity provider": the public half is what Secret ductor-jwt would hold.
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        KeyPair keys = generator.generateKeyPair();
        signingKey = keys.getPrivate();
        keyDir = Files.createTempDirectory("ductor-it-jwt");
        Files.writeString(keyDir.resolve("publickey.pem"), "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(keys.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n", StandardCharsets.US_ASCII);
        log("PostgreSQL up at " + pg.jdbcUrl() + "; public key at " + keyDir.resolve("publickey.pem"));
    }

    @AfterAll
    static void stopEverything() {
        if (pods != null) {
            pods.close();
        }
        if (pg != null) {
            pg.close();
        }
        Pods.deleteTree(keyDir);
        scratch.forEach(Pods::deleteTree);
        log("whole IT took " + Pods.seconds(System.nanoTime() - suiteStarted) + " s");
    }

    @Test
    @Order(1)
    void onAnEmptyDatabaseTheJobAppliesEveryMigrationAndExits0WithoutServing() throws Exception {
        releaseDb = pg.createDatabase(RELEASE_DB);
        assertEquals(0, releaseDb.single("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"),
                "the database starts empty");
        for (String grant : APP_ROLE_GRANTS) {
            releaseDb.update(grant);
        }

        JobRun job = runJob("job-1", RELEASE_DB);
        assertEquals(0, job.exit(), "exit status of the migration Job\n" + job.pod().tail(80));
        assertFalse(job.portAnswered(), "the Job listened on its HTTP port " + job.pod().port() + "\n" + job.log());
        assertNoServerStarted(job);
        List<String> expected = migrationScripts();
        assertTrue(job.log().contains("Successfully applied " + expected.size() + " migrations"),
                "Flyway logged the migrations it applied:\n" + job.log());

        List<Map<String, String>> history = releaseDb.maps(HISTORY);
        log("flyway_schema_history after the first Job:\n" + lines(history));
        assertEquals(expected, history.stream().map(row -> row.get("script")).toList(),
                "every script of " + MIGRATIONS + ", once, in order:\n" + lines(history));
        for (Map<String, String> row : history) {
            assertEquals("t", row.get("success"), "failed migration " + row);
            assertEquals("SQL", row.get("type"), "migration type " + row);
            Matcher file = MIGRATION_FILE.matcher(Path.of(row.get("script")).getFileName().toString());
            assertTrue(file.matches(), row.get("script"));
            assertEquals(file.group(1).replace('_', '.'), row.get("version"), "version of " + row);
            assertEquals(file.group(2).replace('_', ' '), row.get("description"), "description of " + row);
        }
        // The schema the server validates is there: one table it maps, and the queue it polls.
        assertEquals(1, releaseDb.single("SELECT count(*) FROM information_schema.tables WHERE table_name = 'eec_workflow_run'"));
        assertEquals(0, releaseDb.single("SELECT count(*) FROM eec_queue_item"), "the Job queued or claimed nothing");
        historyAfterFirstJob = history;
    }

    @Test
    @Order(2)
    void aSecondRunOfTheJobChangesNothingAndExits0() throws Exception {
        assertMigrated();
        JobRun job = runJob("job-2", RELEASE_DB);
        assertEquals(0, job.exit(), "exit status of the re-run\n" + job.pod().tail(80));
        assertFalse(job.portAnswered(), "the Job listened on its HTTP port " + job.pod().port() + "\n" + job.log());
        assertNoServerStarted(job);
        assertTrue(job.log().contains("No migration necessary"), "Flyway found nothing to do:\n" + job.log());
        assertEquals(historyAfterFirstJob, releaseDb.maps(HISTORY), "flyway_schema_history changed on the re-run");
    }

    @Test
    @Order(3)
    void aServerPodWithoutMigrationAtStartServesTheMigratedDatabase() throws Exception {
        assertMigrated();
        ManifestEnv container = manifestEnv("deployment.yaml", "server-1", RELEASE_DB);
        PodProcess server = pods.launchWithEnv("server-1", container.env(), container.jvmOptions(), null);
        pods.awaitReady(server);
        String token = token(Set.of("admin", "client"));

        // The configured key is the one in use: a token signed by any other key is refused.
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        String forged = tokenSignedWith(generator.generateKeyPair().getPrivate(), Set.of("admin", "client"));
        assertEquals(401, ItHttp.get(server, "/api/v1/runs", forged).statusCode(), "a token of another key");
        ItHttp.expect(200, ItHttp.get(server, "/api/v1/runs", token), "listing runs with a token of the mounted key");

        ItHttp.expect(201, ItHttp.put(server, "/api/v1/workflows/after-migration", token, """
                {"nodes": [
                  {"id": "a", "type": "task", "handler": "noop"},
                  {"id": "b", "type": "task", "handler": "echo", "dependsOn": ["a"]}]}"""), "defining after-migration");
        String runId = ItHttp.expect(201, ItHttp.post(server, "/api/v1/workflows/after-migration/runs", token,
                "{\"input\": {\"x\": 1}, \"idempotencyKey\": \"migration-it-1\"}"), "starting a run").path("runId").asText();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode run = null;
        while (System.nanoTime() < deadline) {
            run = ItHttp.expect(200, ItHttp.get(server, "/api/v1/runs/" + runId, token), "GET run " + runId);
            if (!"RUNNING".equals(run.path("status").asText())) {
                break;
            }
            Thread.sleep(200);
        }
        assertEquals("SUCCEEDED", run.path("status").asText(), "run " + runId + ": " + run + pods.logTails(40));
        // ...as a login that can change no schema: it owns nothing and may create nothing.
        assertEquals(0, releaseDb.single("SELECT count(*) FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE r.rolname = ?",
                APP_ROLE), "objects owned by the pods' login");
        assertEquals(0, releaseDb.single("SELECT CASE WHEN has_schema_privilege(?, 'public', 'CREATE') THEN 1 ELSE 0 END", APP_ROLE),
                "the pods' login may create tables");
        log("run " + runId + " " + run.path("status").asText() + " on server-1, " + server.age() + " s after its launch");

        String serverLog = server.tail(400);
        assertFalse(serverLog.contains("Successfully applied"), "the server migrated:\n" + serverLog);
        assertEquals(historyAfterFirstJob, releaseDb.maps(HISTORY), "the server changed flyway_schema_history");
        assertTrue(server.isAlive(), "server-1 died\n" + server.tail(40));
    }

    @Test
    @Order(4)
    void twoJobsAtOnceOnAFreshDatabaseBothExit0AndApplyEachVersionOnce() throws Exception {
        String database = "ductor_concurrent";
        Sql db = pg.createDatabase(database);
        List<PodProcess> started = new ArrayList<>();
        for (String name : List.of("job-a", "job-b")) {
            Path directory = scratchDirectory("ductor-it-job");
            ManifestEnv container = manifestEnv("job-migrate.yaml", name, database);
            started.add(pods.launchWithEnv(name, container.env(), container.jvmOptions(), directory));
        }
        List<String> expected = migrationScripts();
        int applied = 0;
        for (PodProcess job : started) {
            int exit = job.awaitExit(JOB_TIMEOUT);
            String jobLog = job.tail(400);
            log(job.name() + " exited " + exit + " " + job.age() + " s after its launch");
            assertEquals(0, exit, job.name() + " exit status\n" + jobLog);
            Matcher count = Pattern.compile("Successfully applied (\\d+) migration").matcher(jobLog);
            applied += count.find() ? Integer.parseInt(count.group(1)) : 0;
        }
        List<Map<String, String>> history = db.maps(HISTORY);
        log("flyway_schema_history after two concurrent Jobs:\n" + lines(history));
        assertEquals(expected, history.stream().map(row -> row.get("script")).toList(),
                "each script exactly once:\n" + lines(history));
        assertTrue(history.stream().allMatch(row -> "t".equals(row.get("success"))), lines(history));
        assertEquals(expected.size(), applied, "the two Jobs applied every migration once between them");
    }

    @Test
    @Order(5)
    void aMigrationThatFailsMakesTheJobExitNonZeroAndIsRolledBack() throws Exception {
        String database = "ductor_failing";
        Sql db = pg.createDatabase(database);
        assertEquals(0, runJob("job-setup", database).exit(), "migrating " + database + " first");
        // The last version is pending again, but what it changed is changed already: re-run, its first statement
        // fails (an object it creates already exists, or one it drops does not any more).
        List<String> scripts = migrationScripts();
        String last = scripts.get(scripts.size() - 1);
        assertEquals(1, db.update("DELETE FROM flyway_schema_history WHERE script = ?", last));
        List<Map<String, String>> before = db.maps(HISTORY);

        JobRun job = runJob("job-failing", database);
        String failedScript = Path.of(last).getFileName().toString();
        log("job-failing exited " + job.exit() + "; the lines naming the problem:\n" + job.log().lines()
                .filter(line -> line.contains(failedScript) || alreadyApplied(line) || line.contains("ERROR"))
                .map(line -> "  " + line).reduce("", (x, y) -> x + y + "\n"));
        assertNotEquals(0, job.exit(), "a failed migration fails the Job\n" + job.log());
        assertFalse(job.portAnswered(), "the Job listened on its HTTP port\n" + job.log());
        assertTrue(job.log().contains("Failed to execute script " + failedScript) && alreadyApplied(job.log())
                        && job.log().contains("Changes successfully rolled back"),
                "the log names the failed script and the cause:\n" + job.log());
        assertEquals(before, db.maps(HISTORY), "the failed version was rolled back, not recorded");
    }

    /** PostgreSQL's words for a change made twice: a CREATE of what exists, a DROP of what is gone. */
    private static boolean alreadyApplied(String log) {
        return log.contains("already exists") || log.contains("does not exist");
    }

    @Test
    @Order(6)
    void aServerPodOnAnUnmigratedDatabaseFailsNamingTheMissingTable() throws Exception {
        String database = "ductor_unmigrated";
        Sql db = pg.createDatabase(database);
        ManifestEnv container = manifestEnv("deployment.yaml", "server-unmigrated", database);
        PodProcess server = pods.launchWithEnv("server-unmigrated", container.env(), container.jvmOptions(), null);
        boolean answered = false;
        long deadline = System.nanoTime() + JOB_TIMEOUT.toNanos();
        while (server.isAlive() && System.nanoTime() < deadline) {
            answered |= listening(server.port());
            Thread.sleep(100);
        }
        int exit = server.awaitExit(Duration.ofSeconds(1));
        String serverLog = server.tail(400);
        log("server-unmigrated exited " + exit + " " + server.age() + " s after its launch; the lines naming the problem:\n"
                + serverLog.lines().filter(line -> line.contains("missing table") || line.contains("ERROR"))
                .map(line -> "  " + line).reduce("", (a, b) -> a + b + "\n"));
        assertNotEquals(0, exit, "a server on an unmigrated database exits non-zero\n" + serverLog);
        assertFalse(answered, "it never listened on its HTTP port\n" + serverLog);
        assertTrue(serverLog.contains("Schema validation: missing table"), "the log names the missing table:\n" + serverLog);
        assertEquals(0, db.single("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"),
                "the server created nothing");
    }

    @Test
    @Order(7)
    void aMigrationChangedAfterItWasAppliedMakesTheJobExitNonZeroNamingTheChecksumMismatch() throws Exception {
        String database = "ductor_tampered";
        Sql db = pg.createDatabase(database);
        assertEquals(0, runJob("job-before-edit", database).exit(), "migrating " + database + " first");
        // As if V1's file had been edited after release: the recorded checksum no longer matches the script.
        String first = migrationScripts().get(0);
        assertEquals(1, db.update("UPDATE flyway_schema_history SET checksum = checksum + 1 WHERE script = ?", first));
        List<Map<String, String>> before = db.maps(HISTORY);

        JobRun job = runJob("job-after-edit", database);
        log("job-after-edit exited " + job.exit() + "; the lines naming the problem:\n" + job.log().lines()
                .filter(line -> line.contains("checksum") || line.contains("ERROR")).map(line -> "  " + line)
                .reduce("", (x, y) -> x + y + "\n"));
        assertNotEquals(0, job.exit(), "a checksum mismatch fails the Job\n" + job.log());
        assertFalse(job.portAnswered(), "the Job listened on its HTTP port\n" + job.log());
        assertTrue(job.log().contains("Migration checksum mismatch for migration version " + version(Path.of(first).getFileName().toString())),
                "the log names the changed version:\n" + job.log());
        assertEquals(before, db.maps(HISTORY), "the history was left as it was (no repair, nothing applied)");
    }

    // --- the manifests' environment --------------------------------------------------------------------------

    /** What a container of a manifest is started with: its environment and the JVM options of JAVA_OPTS_APPEND. */
    private record ManifestEnv(Map<String, String> env, List<String> jvmOptions, Map<String, String> mounts) {
    }

    /**
     * The environment of the first container of {@code kubernetes/<file>}, resolved as the kubelet would for a pod
     * named {@code podName}: {@code envFrom} ConfigMaps from {@code configmap.yaml}, literal values as they are,
     * Secret keys of {@code ductor-db} from this test's PostgreSQL and {@code database}, the pod name for
     * {@code metadata.name}, and paths under a volume mount (the JWT key, /tmp) moved to this test's directories.
     * {@code JAVA_OPTS_APPEND} is what the image's launcher appends to the JVM options, so it becomes those; a volume
     * at /tmp becomes {@code java.io.tmpdir}, /tmp being the JVM's default.
     */
    private static ManifestEnv manifestEnv(String file, String podName, String database) throws IOException {
        YAMLMapper yaml = new YAMLMapper();
        JsonNode pod = yaml.readTree(MANIFESTS.resolve(file).toFile()).at("/spec/template/spec");
        JsonNode container = pod.at("/containers/0");
        Map<String, String> mounts = new LinkedHashMap<>(); // mount path -> local directory
        for (JsonNode mount : container.path("volumeMounts")) {
            String volume = mount.path("name").asText();
            Path local = switch (volume) {
                case "jwt" -> keyDir;
                case "tmp" -> scratchDirectory("ductor-it-tmp-" + podName);
                default -> throw new AssertionError("no local stand-in for volume " + volume + " of " + file);
            };
            mounts.put(mount.path("mountPath").asText(), local.toString());
        }
        Map<String, String> env = new TreeMap<>();
        for (JsonNode from : container.path("envFrom")) {
            String configMap = from.at("/configMapRef/name").asText(null);
            assertEquals("ductor-config", configMap, "envFrom of " + file + ": " + from);
            JsonNode data = yaml.readTree(MANIFESTS.resolve("configmap.yaml").toFile()).path("data");
            data.fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
        }
        Map<String, String> secrets = Map.of(
                "ductor-db/jdbc-url", pg.jdbcUrl(database),
                "ductor-db/username", APP_ROLE,
                "ductor-db/password", "unused-trust-auth",
                "ductor-db-owner/jdbc-url", pg.jdbcUrl(database),
                "ductor-db-owner/username", "postgres",
                "ductor-db-owner/password", "unused-trust-auth");
        for (JsonNode var : container.path("env")) {
            String name = var.path("name").asText();
            String value;
            if (var.has("value")) {
                value = var.path("value").asText();
            } else if (var.at("/valueFrom/secretKeyRef").isObject()) {
                JsonNode ref = var.at("/valueFrom/secretKeyRef");
                value = secrets.get(ref.path("name").asText() + "/" + ref.path("key").asText());
                assertTrue(value != null, "no test value for secret " + ref + " of " + file);
            } else if ("metadata.name".equals(var.at("/valueFrom/fieldRef/fieldPath").asText())) {
                value = podName;
            } else {
                throw new AssertionError("cannot resolve env " + var + " of " + file);
            }
            env.put(name, localPath(value, mounts));
        }
        List<String> jvmOptions = new ArrayList<>();
        String append = env.remove("JAVA_OPTS_APPEND");
        if (append != null) {
            for (String option : append.trim().split("\\s+")) {
                int eq = option.indexOf('=');
                jvmOptions.add(option.startsWith("-D") && eq > 0
                        ? option.substring(0, eq + 1) + localPath(option.substring(eq + 1), mounts) : option);
            }
        }
        if (mounts.containsKey("/tmp") && jvmOptions.stream().noneMatch(o -> o.startsWith("-Djava.io.tmpdir="))) {
            // The JVM's default temporary directory on Linux is /tmp: in the container, the mounted volume.
            jvmOptions.add("-Djava.io.tmpdir=" + mounts.get("/tmp"));
        }
        return new ManifestEnv(env, jvmOptions, mounts);
    }

    private static Path scratchDirectory(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        scratch.add(dir);
        return dir;
    }

    private static String localPath(String value, Map<String, String> mounts) {
        for (Map.Entry<String, String> mount : mounts.entrySet()) {
            if (value.equals(mount.getKey()) || value.startsWith(mount.getKey() + "/")) {
                return mount.getValue() + value.substring(mount.getKey().length());
            }
        }
        return value;
    }

    // --- running the Job -------------------------------------------------------------------------------------

    private record JobRun(PodProcess pod, int exit, double seconds, boolean portAnswered, String log) {
    }

    /**
     * Runs the Job's container once against {@code database}, in an empty working directory, probing its HTTP
     * port every 100 ms while it runs; returns once it exited (fails if not within {@link #JOB_TIMEOUT}).
     */
    private static JobRun runJob(String name, String database) throws Exception {
        ManifestEnv container = manifestEnv("job-migrate.yaml", name, database);
        Path directory = scratchDirectory("ductor-it-job");
        PodProcess job = pods.launchWithEnv(name, container.env(), container.jvmOptions(), directory);
        boolean answered = false;
        long deadline = System.nanoTime() + JOB_TIMEOUT.toNanos();
        while (job.isAlive() && System.nanoTime() < deadline) {
            answered |= listening(job.port());
            Thread.sleep(100);
        }
        int exit = job.awaitExit(Duration.ofSeconds(1));
        double seconds = job.age();
        answered |= listening(job.port());
        try (Stream<Path> left = Files.list(directory)) {
            List<Path> written = left.toList();
            assertTrue(written.isEmpty(), name + " wrote to its working directory (read-only in the container): " + written);
        }
        String jobLog = job.tail(400);
        String tmp = container.mounts().get("/tmp");
        List<String> temporary;
        try (Stream<Path> files = tmp == null ? Stream.empty() : Files.walk(Path.of(tmp))) {
            temporary = files.map(f -> Path.of(tmp).relativize(f).toString()).filter(f -> !f.isEmpty()).sorted().toList();
        }
        log(name + " exited " + exit + " " + seconds + " s after its launch; HTTP port " + job.port()
                + (answered ? " ANSWERED" : " never answered") + "; wrote to /tmp: " + temporary + "; log:\n" + jobLog);
        return new JobRun(job, exit, seconds, answered, jobLog);
    }

    /** The Job stopped before Quarkus' "started" line, the HTTP server, and every start-up observer of Ductor. */
    private static void assertNoServerStarted(JobRun job) {
        for (String marker : List.of("Listening on", " started in ", "Installed features")) {
            assertFalse(job.log().contains(marker), "the Job got as far as \"" + marker + "\":\n" + job.log());
        }
        assertFalse(job.log().contains(" ERROR "), "the Job logged an error:\n" + job.log());
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    // --- helpers -----------------------------------------------------------------------------------------------

    /** The migration scripts the build packages, in version order, named as Flyway records them (classpath location). */
    private static List<String> migrationScripts() throws IOException {
        try (Stream<Path> files = Files.list(MIGRATIONS)) {
            List<String> scripts = files.map(p -> p.getFileName().toString())
                    .filter(n -> MIGRATION_FILE.matcher(n).matches())
                    .sorted((a, b) -> compareVersions(version(a), version(b)))
                    .map(n -> "db/migration/" + n)
                    .toList();
            assertFalse(scripts.isEmpty(), "no migrations under " + MIGRATIONS.toAbsolutePath());
            return scripts;
        }
    }

    private static String version(String script) {
        Matcher m = MIGRATION_FILE.matcher(script);
        assertTrue(m.matches(), script);
        return m.group(1).replace('_', '.');
    }

    private static int compareVersions(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            long p = i < x.length ? Long.parseLong(x[i]) : 0;
            long q = i < y.length ? Long.parseLong(y[i]) : 0;
            if (p != q) {
                return Long.compare(p, q);
            }
        }
        return 0;
    }

    private static void assertMigrated() {
        if (historyAfterFirstJob == null) {
            fail("the first Job did not migrate " + RELEASE_DB + " (see the first test)");
        }
    }

    /** A bearer token for tenant "migration-it" as the identity provider would sign it, for the configured issuer. */
    private static String token(Set<String> roles) throws IOException {
        return tokenSignedWith(signingKey, roles);
    }

    private static String tokenSignedWith(PrivateKey key, Set<String> roles) throws IOException {
        JsonNode config = new YAMLMapper().readTree(MANIFESTS.resolve("configmap.yaml").toFile()).path("data");
        return Jwt.issuer(config.path("MP_JWT_VERIFY_ISSUER").asText())
                .audience(Set.of(config.path("MP_JWT_VERIFY_AUDIENCES").asText().split(",")))
                .subject("migration-it")
                .upn("migration-it")
                .groups(roles)
                .claim("tenant", "migration-it")
                .expiresIn(Duration.ofHours(1))
                .sign(key);
    }

    private static String lines(List<Map<String, String>> rows) {
        StringBuilder out = new StringBuilder();
        rows.forEach(row -> out.append("  ").append(row).append('\n'));
        return out.toString();
    }

    private static void log(String message) {
        System.out.println("[" + SUITE + "] " + message);
    }
}
