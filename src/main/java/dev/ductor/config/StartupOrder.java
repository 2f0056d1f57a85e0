package dev.ductor.config;

import jakarta.interceptor.Interceptor;

/**
 * The order of Ductor's own start-up work ({@code @Observes StartupEvent}, lower runs first). Whatever may still
 * fail runs at {@link #BEFORE_LOOPS}; the coordinator and worker loops start last, at the default priority, so they
 * only ever start once the rest of start-up succeeded. That matters: Quarkus fires no ShutdownEvent after a failed
 * StartupEvent, so loops started before a failure would never be stopped, and their open transactions keep the JVM
 * from exiting.
 */
public final class StartupOrder {

    /**
     * First of all: the schema migrated (when this pod migrates) and validated against the entities, and the
     * database's clock read, waiting through a database that goes away meanwhile (dev.ductor.database.DatabaseStartup);
     * everything after it may use the tables and the clock.
     */
    public static final int DATABASE = Interceptor.Priority.APPLICATION - 200;

    /** Before the loops, which observe StartupEvent at the default priority ({@code APPLICATION + 500}). */
    public static final int BEFORE_LOOPS = Interceptor.Priority.APPLICATION;

    private StartupOrder() {
    }
}
