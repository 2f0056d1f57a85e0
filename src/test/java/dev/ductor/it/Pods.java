package dev.ductor.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Launches real Ductor JVMs (the packaged {@code quarkus-run.jar}, {@code -Dquarkus.profile=embedded}) on one
 * PostgreSQL and one dev-token directory, so a token read once works on every pod, including pods started
 * later; or ({@link #launchWithEnv}) in the prod profile, configured by environment variables as a manifest does. Every JVM launched here is stopped by {@link #close()} (and killed by a shutdown hook should the test
 * JVM die first); nothing else is ever touched.
 */
final class Pods implements AutoCloseable {

    static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String suite;
    private final Path runnerJar;
    private final Path workDir;
    private final Path tokenDir;
    private final String jdbcUrl;
    private final List<PodProcess> launched = new ArrayList<>();
    private final Thread killOnExit;

    /**
     * @param suite   the IT's name, prefixing what it logs
     * @param workDir the pods' working directory, where their logs go
     * @param jdbcUrl the database every pod shares; null: none is configured, so each pod starts its own embedded
     *                PostgreSQL (the zero-setup mode; pass its {@code ductor.embedded.*} settings to {@link #launch})
     */
    Pods(String suite, Path workDir, String jdbcUrl) throws IOException {
        this.suite = suite;
        this.runnerJar = runnerJar();
        this.workDir = workDir;
        this.jdbcUrl = jdbcUrl;
        Files.createDirectories(workDir);
        this.tokenDir = Files.createTempDirectory("ductor-it-tokens");
        this.killOnExit = new Thread(() -> launchedSnapshot().forEach(p -> p.process().destroyForcibly()), "kill-ductor-pods-" + suite);
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /** The packaged app, as failsafe passes it ({@code ductor.it.runner-jar}); fails plainly when it was not built. */
    static Path runnerJar() {
        Path jar = Path.of(System.getProperty("ductor.it.runner-jar", "target/quarkus-app/quarkus-run.jar"));
        assertTrue(Files.isRegularFile(jar), "the packaged app is missing: " + jar.toAbsolutePath()
                + " (run ./mvnw package first)");
        return jar;
    }

    /**
     * The directory for an IT's pod logs: failsafe's {@code ductor.it.work-dir} itself when {@code name} is null,
     * else a directory of that name beside it (both under {@code target/}).
     */
    static Path workDir(String name) {
        Path base = Path.of(System.getProperty("ductor.it.work-dir", "target/multipod-it")).toAbsolutePath();
        return name == null ? base : base.resolveSibling(name);
    }

    Path tokenDir() {
        return tokenDir;
    }

    Path directory() {
        return workDir;
    }

    /**
     * Starts one pod named {@code name} (its {@code ductor.pod-name}, so its name is what it writes as
     * {@code lease_owner}) on a free port, logging to {@code <workDir>/<name>.log} (replaced if present).
     * {@code properties} ({@code key=value}) come after the defaults and so override them.
     */
    PodProcess launch(String name, String... properties) throws IOException {
        return launch(name, Map.of(), properties);
    }

    /**
     * As {@link #launch(String, String...)}, with {@code env} added to the JVM's environment (the test JVM's own
     * {@code QUARKUS_*}, {@code DUCTOR_*}... variables are then not passed on, as for {@link #launchWithEnv}); e.g.
     * libfaketime's {@code LD_PRELOAD} and {@code FAKETIME}, to run a pod whose clock is skewed.
     */
    PodProcess launch(String name, Map<String, String> env, String... properties) throws IOException {
        int port = freePort();
        List<String> options = new ArrayList<>(List.of("-Dquarkus.profile=embedded"));
        if (jdbcUrl != null) {
            options.addAll(List.of(
                    "-Dquarkus.datasource.jdbc.url=" + jdbcUrl,
                    "-Dquarkus.datasource.username=postgres",
                    "-Dquarkus.datasource.password="));
        }
        options.addAll(List.of(
                "-Dductor.samples=false",
                "-Dquarkus.http.port=" + port,
                "-Dquarkus.http.host=127.0.0.1",
                "-Dductor.dev-tokens.dir=" + tokenDir,
                "-Dductor.pod-name=" + name,
                // The ITs' http steps call servers the test runs on this machine, and some hold a call for minutes.
                "-Dductor.http.allow=127.0.0.1",
                "-Dductor.http.max-time=10m"));
        options.addAll(switches().entrySet().stream().map(e -> "-D" + e.getKey() + "=" + e.getValue()).toList());
        for (String property : properties) {
            options.add("-D" + property);
        }
        return start(name, port, options, env, workDir,
                (properties.length == 0 ? "" : ", " + String.join(" ", properties)) + (env.isEmpty() ? "" : ", env " + env));
    }

    /**
     * Starts the packaged app the way a container runs it: the default (prod) profile, no Ductor or Quarkus
     * system property, configured by {@code env} alone (the variables a manifest sets), plus the JVM options a
     * container image's launcher would add ({@code jvmOptions}, e.g. {@code JAVA_OPTS_APPEND}). It gets a free
     * port as {@code QUARKUS_HTTP_PORT} on {@code QUARKUS_HTTP_HOST=127.0.0.1} unless {@code env} sets them. The
     * test JVM's own {@code QUARKUS_*}, {@code DUCTOR_*}, {@code MP_JWT_*}, {@code SMALLRYE_*} and
     * {@code JAVA_OPTS*} variables are not passed on, so only {@code env} configures it. Runs in
     * {@code directory} (null: the pods' directory); logs to {@code <workDir>/<name>.log}.
     */
    PodProcess launchWithEnv(String name, Map<String, String> env, List<String> jvmOptions, Path directory) throws IOException {
        int port = env.containsKey("QUARKUS_HTTP_PORT") ? Integer.parseInt(env.get("QUARKUS_HTTP_PORT")) : freePort();
        Map<String, String> all = new TreeMap<>(env);
        switches().forEach((key, value) -> all.putIfAbsent(key.toUpperCase().replaceAll("[.-]", "_"), value));
        all.putIfAbsent("QUARKUS_HTTP_PORT", Integer.toString(port));
        all.putIfAbsent("QUARKUS_HTTP_HOST", "127.0.0.1");
        Map<String, String> shown = new TreeMap<>(all);
        shown.replaceAll((key, value) -> key.contains("PASSWORD") ? "***" : value);
        return start(name, port, jvmOptions, all, directory == null ? workDir : directory, ", env " + shown);
    }

    /**
     * The fast paths' switches as the IT's JVM got them ({@code -Pslow-paths} sets them for failsafe too), passed on to
     * every pod, before the IT's own settings, so a whole fleet takes the paths the build asked for.
     */
    private static Map<String, String> switches() {
        Map<String, String> switches = new TreeMap<>();
        for (String key : List.of("ductor.commit.strategy", "ductor.dispatch.local")) {
            String value = System.getProperty(key);
            if (value != null && !value.isBlank()) {
                switches.put(key, value);
            }
        }
        return switches;
    }

    private PodProcess start(String name, int port, List<String> options, Map<String, String> env, Path directory,
                             String description) throws IOException {
        Path logFile = workDir.resolve(name + ".log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        command.addAll(options);
        command.add("-jar");
        command.add(runnerJar.toAbsolutePath().toString());
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile());
        if (!env.isEmpty()) {
            builder.environment().keySet().removeIf(key -> Stream.of("QUARKUS_", "DUCTOR_", "MP_JWT_", "SMALLRYE_", "JAVA_OPTS")
                    .anyMatch(key::startsWith));
            builder.environment().putAll(env);
        }
        Process process = builder.start();
        PodProcess pod = new PodProcess(name, port, process, logFile);
        synchronized (launched) {
            launched.add(pod);
        }
        log("started " + name + " pid " + process.pid() + " port " + port + ", log " + logFile + description);
        return pod;
    }

    /** Waits until {@code /q/health/ready} says UP; fails with the pod's log tail when it exits or times out. */
    void awaitReady(PodProcess pod) throws InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        String last = "no answer yet";
        while (System.nanoTime() < deadline) {
            if (!pod.isAlive()) {
                fail(pod.name() + " exited with " + pod.process().exitValue() + " before it was ready\n" + pod.tail(80));
            }
            try {
                HttpResponse<String> ready = HTTP.send(HttpRequest.newBuilder(URI.create(pod.url("/q/health/ready")))
                        .timeout(Duration.ofSeconds(3)).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (ready.statusCode() == 200) {
                    log(pod.name() + " ready " + pod.age() + " s after its launch");
                    return;
                }
                last = ready.statusCode() + " " + ready.body();
            } catch (IOException notListeningYet) {
                last = notListeningYet.toString();
            }
            Thread.sleep(250);
        }
        fail(pod.name() + " not ready within " + READY_TIMEOUT + " (last: " + last + ")\n" + pod.tail(80));
    }

    /** The dev token of a role, as the pods wrote it (they share the key pair, so it works on every pod). */
    String token(String role) throws Exception {
        Path file = tokenDir.resolve("dev-tokens").resolve(role + ".jwt");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.isRegularFile(file)) {
                String token = Files.readString(file, StandardCharsets.US_ASCII).trim();
                if (!token.isEmpty()) {
                    return token;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no dev token at " + file + logTails(30));
    }

    /** The last lines of every pod's log, for failure messages. */
    String logTails(int lines) {
        StringBuilder out = new StringBuilder();
        for (PodProcess pod : launchedSnapshot()) {
            out.append("\n----- ").append(pod.name()).append(pod.isAlive() ? "" : " (exited)").append(" (").append(pod.log())
                    .append(") -----\n").append(pod.tail(lines));
        }
        return out.toString();
    }

    /** Stops every pod launched here that still runs (SIGTERM, SIGKILL after 20 s) and deletes the token directory. */
    @Override
    public void close() {
        List<PodProcess> pods = launchedSnapshot();
        for (PodProcess pod : pods) {
            if (pod.isAlive()) {
                pod.process().destroy();
            }
        }
        for (PodProcess pod : pods) {
            pod.stop(Duration.ofSeconds(20));
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
        deleteTree(tokenDir);
    }

    private List<PodProcess> launchedSnapshot() {
        synchronized (launched) {
            return new ArrayList<>(launched);
        }
    }

    private void log(String message) {
        System.out.println("[" + suite + "] " + message);
    }

    // --- small shared helpers ------------------------------------------------------------------------------------

    /** Deletes the {@code *.log} files a previous run left in {@code dir}, so every log there is this run's. */
    static void deleteOldLogs(Path dir) throws IOException {
        Files.createDirectories(dir);
        try (Stream<Path> old = Files.list(dir)) {
            old.filter(p -> p.getFileName().toString().endsWith(".log")).forEach(Pods::deleteQuietly);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }

    static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e + ")";
        }
    }

    static double seconds(long nanos) {
        return Math.round(nanos / 1e8) / 10.0;
    }

    static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(Pods::deleteQuietly);
        } catch (IOException e) {
            System.out.println("[Pods] could not delete " + dir + ": " + e);
        }
    }

    static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // best effort
        }
    }
}
