package dev.ductor.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** One Ductor JVM that a test started (the packaged {@code quarkus-run.jar}), its HTTP port and its log file. */
final class PodProcess {

    private final String name;
    private final int port;
    private final Process process;
    private final Path log;
    private final long launchedNanos = System.nanoTime();

    PodProcess(String name, int port, Process process, Path log) {
        this.name = name;
        this.port = port;
        this.process = process;
        this.log = log;
    }

    /** Seconds since this JVM was launched. */
    double age() {
        return Pods.seconds(System.nanoTime() - launchedNanos);
    }

    String name() {
        return name;
    }

    int port() {
        return port;
    }

    Process process() {
        return process;
    }

    Path log() {
        return log;
    }

    long pid() {
        return process.pid();
    }

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * SIGKILL, what an OOM killer or a lost host does: no shutdown hook, no graceful stop, no last heartbeat.
     * Waits (bounded) until the JVM is gone and returns its exit value (137 for a SIGKILL).
     */
    int kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " (pid " + process.pid() + ") still alive 15 s after SIGKILL");
        }
        return process.exitValue();
    }

    /**
     * Waits (bounded) for the JVM to exit by itself, as a Job's process must, and returns its exit value; fails with
     * the log tail when it still runs after {@code timeout} (and kills it).
     */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(name + " (pid " + process.pid() + ") still running " + timeout + " after its launch;"
                    + " killed\n" + tail(80));
        }
        return process.exitValue();
    }

    /** SIGTERM, then SIGKILL when it has not stopped within {@code grace}. */
    void stop(Duration grace) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    String tail(int lines) {
        return Pods.tail(log, lines);
    }

    @Override
    public String toString() {
        return name + "@" + port + " (pid " + process.pid() + ")";
    }
}
