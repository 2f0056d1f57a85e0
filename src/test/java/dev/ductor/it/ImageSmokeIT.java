package dev.ductor.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.smallrye.jwt.build.Jwt;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs the container image that {@code -Pimage} built ({@code target/ductor-image.tar}) the way a container runtime
 * would, without one (no Docker here): its layers are unpacked in manifest order into a root file system, which is
 * mounted read-only (the Deployment's {@code readOnlyRootFilesystem}) with a writable tmpfs {@code /tmp}, fresh
 * {@code /proc} and host {@code /dev}, in private mount and PID namespaces; the image's own entrypoint, working
 * directory, user and environment are taken from its config, plus the settings a pod gets from the manifests
 * (datasource, JWT key, port). The image must then start on an external PostgreSQL with its embedded one off, as
 * uid 185, with the AOT cache trained into it ({@code -XX:AOTMode=on}, so an unusable cache fails the start), serve
 * a run to SUCCEEDED, and stop cleanly on SIGTERM.
 *
 * <p>Only in the image profile (the tarball needs root and debootstrap to build): {@code ./mvnw verify -Pimage
 * -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=ImageSmokeIT}. Needs root (namespaces, chroot).
 */
@Tag("it")
class ImageSmokeIT {

    private static final String SUITE = "ImageSmokeIT";
    private static final String ISSUER = "ductor-image-it";
    private static final String WORKFLOW = """
            {"nodes": [
              {"id": "a", "type": "task", "handler": "echo"},
              {"id": "b", "type": "task", "handler": "noop", "dependsOn": ["a"]}]}""";

    private static ItPostgres pg;
    private static Path work;

    @BeforeAll
    static void startPostgres() throws Exception {
        work = Pods.workDir("image-smoke-it");
        Pods.deleteTree(work);
        Files.createDirectories(work);
        pg = ItPostgres.start(false);
    }

    @AfterAll
    static void stopPostgres() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void theImageServesARunAsNonRootOnAReadOnlyRootWithItsEmbeddedPostgresOff() throws Exception {
        Path tarball = Path.of(System.getProperty("ductor.it.image-tarball", "target/ductor-image.tar"));
        assertTrue(Files.isRegularFile(tarball), tarball + " is missing: build it with ./mvnw package -Pimage");

        Path unpacked = work.resolve("image");
        Files.createDirectories(unpacked);
        run(work, "tar", "--warning=no-unknown-keyword", "-xf", tarball.toAbsolutePath().toString(), "-C", unpacked.toString());
        JsonNode manifest = ItHttp.tree(Files.readString(unpacked.resolve("manifest.json"))).get(0);
        JsonNode config = ItHttp.tree(Files.readString(unpacked.resolve(manifest.path("Config").asText()))).path("config");

        // What the image promises before it runs.
        assertEquals("185", config.path("User").asText(), "runs as the uid the manifests expect: " + config);
        assertEquals("/deployments", config.path("WorkingDir").asText());
        assertTrue(config.path("ExposedPorts").has("8080/tcp"), "exposes 8080: " + config);
        List<String> env = texts(config.path("Env"));
        assertTrue(env.contains("DUCTOR_EMBEDDED_ENABLED=false"), "embedded PostgreSQL off in the image: " + env);
        List<String> entrypoint = texts(config.path("Entrypoint"));
        assertEquals("java", entrypoint.get(0), "entrypoint " + entrypoint);
        assertTrue(entrypoint.contains("quarkus-run.jar"), "entrypoint " + entrypoint);
        assertTrue(entrypoint.contains("-XX:AOTCache=/deployments/ductor.aot"), "starts with its AOT cache: " + entrypoint);

        Path rootfs = work.resolve("rootfs");
        Files.createDirectories(rootfs);
        for (JsonNode layer : manifest.path("Layers")) {
            run(work, "tar", "--warning=no-unknown-keyword", "-xf", unpacked.resolve(layer.asText()).toString(), "-C", rootfs.toString());
        }
        try (Stream<Path> files = Files.walk(rootfs)) {
            assertFalse(files.anyMatch(p -> p.getFileName().toString().startsWith(".wh.")),
                    "a layer deletes files (whiteouts), which this plain unpacking does not apply");
        }
        assertTrue(Files.isRegularFile(rootfs.resolve("deployments/quarkus-run.jar")), "app in /deployments");
        assertTrue(Files.size(rootfs.resolve("deployments/ductor.aot")) > 10_000_000, "the AOT cache is in the image");

        // The JWT key as a Secret volume would mount it.
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        KeyPair keys = generator.generateKeyPair();
        Path keyDir = rootfs.resolve("etc/ductor/jwt");
        Files.createDirectories(keyDir);
        Files.writeString(keyDir.resolve("publickey.pem"), "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(keys.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n");

        int port = Pods.freePort();
        List<String> containerEnv = new ArrayList<>(env);
        containerEnv.addAll(List.of(
                "QUARKUS_HTTP_PORT=" + port,
                "QUARKUS_DATASOURCE_JDBC_URL=" + pg.jdbcUrl(),
                "QUARKUS_DATASOURCE_USERNAME=postgres",
                "QUARKUS_DATASOURCE_PASSWORD=postgres",
                "MP_JWT_VERIFY_PUBLICKEY_LOCATION=/etc/ductor/jwt/publickey.pem",
                "MP_JWT_VERIFY_ISSUER=" + ISSUER,
                "DUCTOR_POD_NAME=image-smoke",
                // A cache the JVM cannot use (another JVM build, class path or flags) is then an error, not a warning.
                "JAVA_TOOL_OPTIONS=-XX:AOTMode=on"));

        // mount --bind R R makes R a mount point that can be remounted read-only after its writable sub-mounts.
        String setUp = "set -e; R=$1; shift; mount --bind \"$R\" \"$R\"; mount -t proc proc \"$R/proc\";"
                + " mount --rbind /dev \"$R/dev\"; mount -t tmpfs -o mode=1777 tmpfs \"$R/tmp\";"
                + " mount -o remount,bind,ro \"$R\"; exec chroot --userspec=185:185 \"$R\" \"$@\"";
        List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--pid", "--fork", "--kill-child", "--",
                "sh", "-c", setUp, "sh", rootfs.toAbsolutePath().toString(), "/usr/bin/env", "-i"));
        command.addAll(containerEnv);
        command.addAll(List.of("/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", config.path("WorkingDir").asText()));
        command.addAll(entrypoint);

        Path log = work.resolve("container.log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PodProcess container = new PodProcess("container", port, process, log);
        try (Pods pods = new Pods(SUITE, work, pg.jdbcUrl())) {
            pods.awaitReady(container);

            ProcessHandle java = javaOf(process).orElseThrow(() -> new AssertionError("no java process in the container"));
            long cpuToReadyMs = cpuMillis(java.pid());
            assertEquals("185", statusField(java.pid(), "Uid:").split("\\s+")[0], "the JVM runs as uid 185");
            String logText = Files.readString(log);
            assertFalse(logText.contains("Ductor embedded PostgreSQL"), "no embedded PostgreSQL started:\n" + container.tail(40));

            String admin = token(keys, "admin");
            String client = token(keys, "client");
            ItHttp.expect(201, ItHttp.put(container, "/api/v1/workflows/smoke", admin, WORKFLOW), "defining smoke");
            String runId = ItHttp.expect(201, ItHttp.post(container, "/api/v1/workflows/smoke/runs", client,
                    "{\"input\": {\"hello\": \"image\"}}"), "starting smoke").path("runId").asText();
            JsonNode run = awaitFinished(container, client, runId);
            assertEquals("SUCCEEDED", run.path("status").asText(), "run in the image: " + run);
            long rows = pg.sql().single("SELECT count(*) FROM eec_workflow_run WHERE run_id = ?::uuid", runId);
            assertEquals(1, rows, "the run lives in the external PostgreSQL");

            // SIGTERM to the JVM, as the kubelet sends it to the container's main process.
            java.destroy();
            assertTrue(process.waitFor(45, TimeUnit.SECONDS), "container still running 45 s after SIGTERM\n" + container.tail(40));
            String stopped = Files.readString(log);
            assertTrue(stopped.contains("stopped in"), "Quarkus logged its clean stop:\n" + container.tail(40));
            assertFalse(stopped.contains("ERROR"), "no ERROR in the container log:\n" + container.tail(80));
            System.out.println("[" + SUITE + "] image " + tarball + ": ready (JVM CPU to ready " + cpuToReadyMs
                    + " ms, AOT cache required), run " + runId + " SUCCEEDED, uid 185, read-only root, stopped on SIGTERM"
                    + " with exit " + process.exitValue());
        } finally {
            process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
        }
    }

    private static String token(KeyPair keys, String role) {
        return Jwt.issuer(ISSUER).subject("it-" + role).upn("it-" + role).groups(Set.of(role))
                .claim("tenant", "demo").expiresIn(Duration.ofMinutes(30)).sign(keys.getPrivate());
    }

    private static JsonNode awaitFinished(PodProcess pod, String token, String runId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode run = null;
        while (System.nanoTime() < deadline) {
            run = ItHttp.expect(200, ItHttp.get(pod, "/api/v1/runs/" + runId, token), "GET run");
            String status = run.path("status").asText();
            if (status.equals("SUCCEEDED") || status.equals("FAILED") || status.equals("CANCELLED")) {
                return run;
            }
            Thread.sleep(200);
        }
        fail("run " + runId + " not finished within 60 s: " + run + "\n" + pod.tail(60));
        return run;
    }

    /** The JVM among the container's processes (unshare -> sh -> chroot/env/sh exec chain -> java). */
    private static Optional<ProcessHandle> javaOf(Process container) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            Optional<ProcessHandle> java = container.descendants()
                    .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false)).findFirst();
            if (java.isPresent()) {
                return java;
            }
            Thread.sleep(100);
        }
        return Optional.empty();
    }

    private static String statusField(long pid, String field) throws IOException {
        return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream().filter(l -> l.startsWith(field))
                .map(l -> l.substring(field.length()).trim()).findFirst().orElseThrow();
    }

    /** utime + stime of a process (fields 14 and 15 of /proc/<pid>/stat, after the parenthesised name). */
    private static long cpuMillis(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        return ticks * 1000 / 100; // USER_HZ is 100 on Linux
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(n -> texts.add(n.asText()));
        return texts;
    }

    private static void run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
            fail(String.join(" ", command) + " failed:\n" + out);
        }
    }
}
