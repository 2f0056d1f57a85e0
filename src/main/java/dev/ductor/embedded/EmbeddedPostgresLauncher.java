package dev.ductor.embedded;

import io.quarkus.runtime.LaunchMode;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Starts one real PostgreSQL per JVM on a data directory, for zero-setup starts and for the tests.
 *
 * <p>zonky's binaries come from Maven Central and it runs them through {@code unshare -U} when the JVM
 * is root, which PostgreSQL otherwise refuses. What zonky does not handle is a JVM killed with -9: the
 * postmaster it started is a daemon and keeps running, holding the data directory. We stop such an
 * orphan before starting, after making sure no live Ductor still owns the directory.
 *
 * <p>The running server is remembered in a system property rather than a static field because dev mode
 * reloads application classes in a fresh class loader, and a second start on the same directory would
 * fail. In dev mode and tests the server stops with the JVM (zonky's shutdown hook), not with a Quarkus
 * restart; a packaged application stops it at the very end of its own shutdown ({@link EmbeddedPostgresShutdown}),
 * after the loops and workers have stopped, because zonky's JVM hook would race them; our own hook stops it only once
 * Quarkus has stopped, which covers a start that failed ({@link #stopAfterQuarkus}).
 */
public final class EmbeddedPostgresLauncher {

    private static final Logger LOG = Logger.getLogger(EmbeddedPostgresLauncher.class.getName());
    private static final String RUNNING_URL_PROPERTY = "ductor-internal.embedded-postgres.url";
    private static final String DATABASE = "postgres";
    public static final String USER = "postgres";
    private static volatile EmbeddedPostgres packaged;

    private EmbeddedPostgresLauncher() {
    }

    /** Returns the JDBC URL of this JVM's embedded PostgreSQL, starting it on first use. */
    public static synchronized String jdbcUrl(Path dataDirectory, boolean ephemeral, int port) {
        String running = System.getProperty(RUNNING_URL_PROPERTY);
        if (running != null) {
            return running;
        }
        try {
            boolean packagedApp = LaunchMode.current() == LaunchMode.NORMAL;
            EmbeddedPostgres postgres = start(dataDirectory, ephemeral, port, !packagedApp);
            if (packagedApp) {
                packaged = postgres;
                Runtime.getRuntime().addShutdownHook(new Thread(EmbeddedPostgresLauncher::stopAfterQuarkus,
                        "ductor-embedded-postgres-stop"));
            }
            String url = postgres.getJdbcUrl(USER, DATABASE);
            System.setProperty(RUNNING_URL_PROPERTY, url);
            LOG.info(() -> "Ductor embedded PostgreSQL " + (ephemeral ? "(ephemeral) " : "") + "data="
                    + dataDirectory.toAbsolutePath() + " url=" + url);
            return url;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start the embedded PostgreSQL in " + dataDirectory.toAbsolutePath()
                    + "; set QUARKUS_DATASOURCE_JDBC_URL to use an external one", e);
        }
    }

    /** Stops the server a packaged application started; called once Quarkus has stopped everything else. */
    static synchronized void stopPackaged() {
        EmbeddedPostgres postgres = packaged;
        packaged = null;
        if (postgres != null) {
            try {
                postgres.close();
            } catch (IOException e) {
                LOG.warning(() -> "Could not stop the embedded PostgreSQL: " + e.getMessage());
            }
        }
    }

    /**
     * The JVM is exiting. Normally Quarkus has stopped everything and {@link EmbeddedPostgresShutdown} the server;
     * but a start that failed (a schema check, a port in use, any start-up observer) fires no ShutdownEvent, and the
     * server would outlive the JVM. So this hook waits, bounded, until Quarkus has stopped the application (at once
     * after a failed start; after its drain on SIGTERM, so the loops never lose their database mid-drain), then stops
     * the server if it still runs.
     */
    private static void stopAfterQuarkus() {
        io.quarkus.runtime.Application application = io.quarkus.runtime.Application.currentApplication();
        if (application != null) {
            // Returns at once when the start failed (the application is already STOPPED), after the drain otherwise.
            Thread waiter = new Thread(application::awaitShutdown, "ductor-await-quarkus-stop");
            waiter.setDaemon(true);
            waiter.start();
            try {
                waiter.join(TimeUnit.SECONDS.toMillis(120));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        stopPackaged();
    }

    static EmbeddedPostgres start(Path dataDirectory, boolean ephemeral, int port) throws IOException {
        return start(dataDirectory, ephemeral, port, true);
    }

    static EmbeddedPostgres start(Path dataDirectory, boolean ephemeral, int port, boolean stopWithTheJvm) throws IOException {
        Files.createDirectories(dataDirectory);
        if (!ephemeral) {
            stopOrphanedPostmaster(dataDirectory);
        }
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                .setCleanDataDirectory(ephemeral)
                .setPGStartupWait(Duration.ofSeconds(60))
                .setRegisterShutdownHook(stopWithTheJvm)
                // Enough connections for several pods' pools plus pgbench in benchmarks.
                .setServerConfig("max_connections", "300")
                .setServerConfig("shared_buffers", "128MB")
                .setServerConfig("listen_addresses", "localhost");
        if (ephemeral) {
            // Throw-away data: durability buys nothing and costs test time.
            builder.setServerConfig("fsync", "off")
                    .setServerConfig("synchronous_commit", "off")
                    .setServerConfig("full_page_writes", "off");
        } else {
            // zonky defaults to fsync and synchronous_commit off (it was made for tests); data that must
            // survive a crash needs both on.
            builder.setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on");
        }
        if (port > 0) {
            builder.setPort(port);
        }
        return builder.start();
    }

    /**
     * A postmaster still listed in postmaster.pid after our JVM died is an orphan of a kill -9. Ask it to
     * shut down (SIGTERM, smart shutdown; it has no clients left) and escalate to SIGKILL, which PostgreSQL
     * survives by crash recovery on the next start.
     */
    static void stopOrphanedPostmaster(Path dataDirectory) throws IOException {
        Optional<ProcessHandle> postmaster = livePostmaster(dataDirectory);
        if (postmaster.isEmpty()) {
            return;
        }
        if (!OwnerLock.isFree(dataDirectory)) {
            throw new IllegalStateException("Data directory " + dataDirectory.toAbsolutePath()
                    + " is in use by another running Ductor; stop it or set ductor.embedded.data-dir");
        }
        ProcessHandle process = postmaster.get();
        LOG.warning(() -> "Stopping orphaned PostgreSQL pid " + process.pid() + " left behind in " + dataDirectory);
        process.destroy();
        try {
            process.onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception timeoutOrInterrupt) {
            process.destroyForcibly();
            process.onExit().join();
        }
    }

    private static Optional<ProcessHandle> livePostmaster(Path dataDirectory) throws IOException {
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(pidFile);
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        long pid;
        try {
            pid = Long.parseLong(lines.get(0).trim());
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false));
    }
}
