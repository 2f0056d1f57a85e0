package dev.ductor.sdk;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged Ductor server ({@code -Dductor.server.jar}, built by the root project) in its embedded profile on a
 * throw-away PostgreSQL, started once for all tests of this JVM and stopped when it exits. Task leases are short
 * (5 s, reaped every second), so lease expiry and heartbeats show within seconds.
 */
public final class TestServer {

    public static final Duration LEASE = Duration.ofSeconds(5);

    private static TestServer instance;

    private final Process process;
    private final int port;
    private final Path dir;
    private final Path log;

    private TestServer(Process process, int port, Path dir, Path log) {
        this.process = process;
        this.port = port;
        this.dir = dir;
        this.log = log;
    }

    public static synchronized TestServer get() {
        if (instance == null) {
            try {
                instance = start();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("could not start the Ductor server", e);
            }
        }
        return instance;
    }

    private static TestServer start() throws IOException, InterruptedException {
        Path jar = Path.of(System.getProperty("ductor.server.jar", "../target/quarkus-app/quarkus-run.jar")).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " does not exist: package the server first (./mvnw package -DskipTests in the"
                    + " repository root)");
        }
        Path dir = Files.createTempDirectory("ductor-sdk-it");
        Path log = Path.of("target", "ductor-server-" + ProcessHandle.current().pid() + ".log").toAbsolutePath();
        Files.createDirectories(log.getParent());
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Dquarkus.profile=embedded",
                "-Dductor.embedded.ephemeral=true",
                "-Dductor.samples=false",
                "-Dquarkus.http.port=" + port,
                "-Dquarkus.http.host=127.0.0.1",
                "-Dductor.dev-tokens.dir=" + dir.resolve(".ductor"),
                "-Dductor.worker.lease=" + LEASE.toSeconds() + "s",
                "-Dductor.worker.reap-interval=1s",
                "-jar", jar.toString()));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        TestServer server = new TestServer(process, port, dir, log);
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
        server.awaitReady();
        return server;
    }

    private void awaitReady() throws InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the server exited with " + process.exitValue() + "; see " + log);
            }
            try {
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(baseUri() + "/q/health/ready"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                if (ready.statusCode() == 200 && Files.exists(tokenFile("worker"))) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        stop();
        throw new IllegalStateException("the server was not ready within 180 s; see " + log);
    }

    public String baseUri() {
        return "http://127.0.0.1:" + port;
    }

    /** The directory the server runs in; its dev tokens are in {@code .ductor/dev-tokens/<role>.jwt} below it. */
    public Path dir() {
        return dir;
    }

    public Path tokenFile(String role) {
        return dir.resolve(".ductor").resolve("dev-tokens").resolve(role + ".jwt");
    }

    public DuctorClient client(String role) {
        return DuctorClient.builder().baseUri(baseUri()).tokenFile(tokenFile(role)).build();
    }

    private void stop() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
