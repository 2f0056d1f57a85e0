package dev.ductor.it;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;

/**
 * One real PostgreSQL (zonky's binaries from Maven Central) for one IT class, outliving the pods it serves:
 * pods come and go (or are killed), the database stays.
 */
final class ItPostgres implements AutoCloseable {

    private volatile EmbeddedPostgres postgres;
    private final Path dataDir;
    private final Sql sql;
    private final boolean durable;

    private ItPostgres(EmbeddedPostgres postgres, Path dataDir, boolean durable) {
        this.postgres = postgres;
        this.dataDir = dataDir;
        this.durable = durable;
        this.sql = new Sql(postgres.getPostgresDatabase());
    }

    /**
     * Starts a PostgreSQL on a fresh temporary data directory. {@code durable}: fsync and synchronous commit on,
     * as for data that must survive a crash; otherwise off, which is quicker and fine for throw-away data.
     */
    static ItPostgres start(boolean durable) throws IOException {
        Path dataDir = Files.createTempDirectory("ductor-it-pg");
        return new ItPostgres(server(dataDir, durable, 0).start(), dataDir, durable);
    }

    private static EmbeddedPostgres.Builder server(Path dataDir, boolean durable, int port) {
        String onOff = durable ? "on" : "off";
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(dataDir)
                // kept on stop (an outage), deleted by close()
                .setCleanDataDirectory(false)
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("max_connections", "300")
                .setServerConfig("listen_addresses", "localhost")
                .setServerConfig("fsync", onOff)
                .setServerConfig("synchronous_commit", onOff)
                .setServerConfig("full_page_writes", onOff);
        return port > 0 ? builder.setPort(port) : builder;
    }

    /** An outage: the server stops (fast shutdown, clients disconnected); its data and port stay for {@link #restart}. */
    void stop() throws IOException {
        postgres.close();
    }

    /** The server back on the same data directory and port, as after a database restart. */
    void restart() throws IOException {
        postgres = server(dataDir, durable, postgres.getPort()).start();
    }

    /**
     * A crash and a restart: {@code pg_ctl stop -m immediate} (the postmaster and every backend quit at once, no
     * checkpoint, open transactions lost, connections cut), {@code down} with no server, then the server again on
     * the same data directory and port, where it recovers from its WAL as after a power loss. Returns how long the
     * server was unreachable.
     */
    Duration crashRestart(Duration down) throws IOException, InterruptedException {
        long started = System.nanoTime();
        PostgresCrash.immediateStop(dataDir);
        // The server is gone; zonky's close() now only releases its lock on the data directory. Its own
        // "pg_ctl stop" finds no server, which it would log as an error with a stack trace: expected here.
        java.util.logging.Logger zonky = java.util.logging.Logger.getLogger(EmbeddedPostgres.class.getName());
        java.util.logging.Level level = zonky.getLevel();
        zonky.setLevel(java.util.logging.Level.OFF);
        try {
            postgres.close();
        } finally {
            zonky.setLevel(level);
        }
        Thread.sleep(down.toMillis());
        restart();
        return Duration.ofNanos(System.nanoTime() - started);
    }

    String jdbcUrl() {
        return postgres.getJdbcUrl("postgres", "postgres");
    }

    /** A database URL as a Secret would give it: host, port and database, no user (that comes separately). */
    String jdbcUrl(String database) {
        return "jdbc:postgresql://localhost:" + postgres.getPort() + "/" + database;
    }

    /** Creates the empty database {@code name} (a plain identifier) on this server and returns its {@link Sql}. */
    Sql createDatabase(String name) throws SQLException {
        sql.update("CREATE DATABASE " + name);
        return new Sql(postgres.getDatabase("postgres", name));
    }

    Path dataDir() {
        return dataDir;
    }

    Sql sql() {
        return sql;
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            System.out.println("[ItPostgres] stopping PostgreSQL failed: " + e);
        }
        Pods.deleteTree(dataDir);
    }
}
