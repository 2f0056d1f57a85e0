package dev.ductor.embedded;

import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Stops a packaged application's embedded PostgreSQL last: observers run in priority order, and this one
 * comes after the coordinator loops, workers and schedulers have stopped using the database.
 */
@ApplicationScoped
public class EmbeddedPostgresShutdown {

    void stop(@Observes @Priority(Integer.MAX_VALUE - 1) ShutdownEvent event) {
        EmbeddedPostgresLauncher.stopPackaged();
    }
}
