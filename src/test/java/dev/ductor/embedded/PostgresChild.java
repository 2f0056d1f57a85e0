package dev.ductor.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;

/** A stand-in for a Ductor JVM: starts the embedded server on a directory, writes a row, then waits to be killed. */
public final class PostgresChild {

    private PostgresChild() {
    }

    public static void main(String[] args) throws Exception {
        EmbeddedPostgres postgres = EmbeddedPostgresLauncher.start(Path.of(args[0]), false, 0);
        try (Connection connection = DriverManager.getConnection(postgres.getJdbcUrl("postgres", "postgres"))) {
            connection.createStatement().execute("CREATE TABLE survivor (note text)");
            connection.createStatement().execute("INSERT INTO survivor VALUES ('written before kill -9')");
        }
        System.out.println("READY " + postgres.getProcess().pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
