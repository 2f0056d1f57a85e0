package dev.ductor.aggregate.schedule;

import dev.ductor.aggregate.ProjectionRows;
import dev.ductor.aggregate.core.Schedule;
import dev.ductor.config.JsonCodec;
import dev.ductor.config.SqlTimestamps;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * {@code eec_schedule}: the schedules' read model (written in the transaction that appends the events it derives from,
 * moved only from the version it was decided on) and their firing state (moved by a pass only from the
 * {@code fired_through} and version it read). Every write is conditional; one that matches nothing reports it (false).
 * Joins the caller's transaction.
 */
@ApplicationScoped
public class ScheduleProjection {

    @Inject EntityManager em;
    @Inject JsonCodec json;

    /** Where a schedule's firing stands. */
    public record Firing(Instant firedThrough, Instant nextFireAt, Instant lastFireAt, UUID lastRunId, String lastError) {
    }

    /** A schedule a pass found due: its definition and the version and cursor it was read at. */
    public record Due(String tenant, String name, Schedule schedule, long version, Instant firedThrough, UUID lastRunId) {
    }

    @SuppressWarnings("unchecked")
    public List<String> names(String tenant) {
        return em.createNativeQuery("SELECT name FROM eec_schedule WHERE tenant = ?1 ORDER BY name")
                .setParameter(1, tenant)
                .getResultList();
    }

    /** The first row of a new schedule; false when a row is already there. */
    public boolean insert(String tenant, String name, Schedule schedule, long version, Instant now, Instant firedThrough,
                          Instant nextFireAt) {
        return withRow(em.createNativeQuery("""
                        INSERT INTO eec_schedule (tenant, name, workflow_name, definition, paused, db_record_version, updated_at,
                                                  fired_through, next_fire_at)
                        VALUES (?1, ?2, ?3, CAST(?4 AS jsonb), ?5, ?6, ?7, ?8, CAST(?9 AS timestamptz))
                        ON CONFLICT (tenant, name) DO NOTHING"""), tenant, name, schedule, version, now, firedThrough, nextFireAt)
                .executeUpdate() == 1;
    }

    /** The firing state, the row locked until the caller's transaction ends (an edit decides on it); empty without a row. */
    public Optional<Firing> lockFiring(String tenant, String name) {
        return firing(tenant, name, " FOR UPDATE");
    }

    public Optional<Firing> firing(String tenant, String name) {
        return firing(tenant, name, "");
    }

    @SuppressWarnings("unchecked")
    private Optional<Firing> firing(String tenant, String name, String lock) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT fired_through, next_fire_at, last_fire_at, last_run_id, last_error
                          FROM eec_schedule WHERE tenant = ?1 AND name = ?2""" + lock)
                .setParameter(1, tenant)
                .setParameter(2, name)
                .getResultList();
        return rows.stream().findFirst().map(r -> new Firing(SqlTimestamps.toInstant(r[0]), instantOrNull(r[1]),
                instantOrNull(r[2]), (UUID) r[3], (String) r[4]));
    }

    /** Moves the row from {@code expectedVersion} to the new definition and firing cursor; false when it is not at that version. */
    public boolean update(String tenant, String name, long expectedVersion, Schedule schedule, long version, Instant now,
                          Instant firedThrough, Instant nextFireAt) {
        return withRow(em.createNativeQuery("""
                        UPDATE eec_schedule SET workflow_name = ?3, definition = CAST(?4 AS jsonb), paused = ?5,
                                                db_record_version = ?6, updated_at = ?7, fired_through = ?8,
                                                next_fire_at = CAST(?9 AS timestamptz)
                         WHERE tenant = ?1 AND name = ?2 AND db_record_version = ?10"""), tenant, name, schedule, version, now,
                        firedThrough, nextFireAt)
                .setParameter(10, expectedVersion)
                .executeUpdate() == 1;
    }

    /** The version the row reflects, 0 when there is no row. */
    public long version(String tenant, String name) {
        return ProjectionRows.version(em.createNativeQuery(
                "SELECT db_record_version FROM eec_schedule WHERE tenant = ?1 AND name = ?2"), tenant, name);
    }

    /** Up to {@code limit} unpaused schedules, of every tenant, whose next fire time has come, the most overdue first. */
    @SuppressWarnings("unchecked")
    public List<Due> due(Instant now, int limit) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT tenant, name, CAST(definition AS text), db_record_version, fired_through, last_run_id
                          FROM eec_schedule WHERE NOT paused AND next_fire_at <= ?1 ORDER BY next_fire_at LIMIT ?2""")
                .setParameter(1, now)
                .setParameter(2, limit)
                .getResultList();
        return rows.stream().map(r -> new Due((String) r[0], (String) r[1], Schedule.fromJson(json.tree((String) r[2])),
                ((Number) r[3]).longValue(), SqlTimestamps.toInstant(r[4]), (UUID) r[5])).toList();
    }

    /**
     * Claims a pass over the schedule: moves its cursor from {@code seen} to {@code firedThrough}, only if neither the
     * cursor nor the definition moved since they were read. False: another pod's pass, or an edit, came first.
     */
    public boolean advance(Due due, Instant firedThrough, Instant nextFireAt) {
        return em.createNativeQuery("""
                        UPDATE eec_schedule SET fired_through = ?3, next_fire_at = CAST(?4 AS timestamptz)
                         WHERE tenant = ?1 AND name = ?2 AND fired_through = ?5 AND db_record_version = ?6""")
                .setParameter(1, due.tenant())
                .setParameter(2, due.name())
                .setParameter(3, firedThrough)
                .setParameter(4, nextFireAt)
                .setParameter(5, due.firedThrough())
                .setParameter(6, due.version())
                .executeUpdate() == 1;
    }

    /** What the claimed pass ({@link #advance}, same transaction) started: the last run and fire time, the last refusal. */
    public void recordFires(Due due, Instant firedThrough, Instant lastFireAt, UUID lastRunId, String lastError) {
        int updated = em.createNativeQuery("""
                        UPDATE eec_schedule SET last_fire_at = COALESCE(CAST(?3 AS timestamptz), last_fire_at), last_run_id = CAST(?4 AS uuid),
                                                last_error = CAST(?5 AS text)
                         WHERE tenant = ?1 AND name = ?2 AND fired_through = ?6 AND db_record_version = ?7""")
                .setParameter(1, due.tenant())
                .setParameter(2, due.name())
                .setParameter(3, lastFireAt)
                .setParameter(4, lastRunId == null ? null : lastRunId.toString())
                .setParameter(5, lastError)
                .setParameter(6, firedThrough)
                .setParameter(7, due.version())
                .executeUpdate();
        if (updated != 1) {
            throw new IllegalStateException("schedule '" + due.name() + "' of tenant " + due.tenant()
                    + " moved under a pass that holds its row");
        }
    }

    /** Binds ?1 to ?9, the row as insert and update both write it. */
    private Query withRow(Query query, String tenant, String name, Schedule schedule, long version, Instant now,
                          Instant firedThrough, Instant nextFireAt) {
        return query.setParameter(1, tenant)
                .setParameter(2, name)
                .setParameter(3, schedule.workflow())
                .setParameter(4, json.write(schedule.toJson()))
                .setParameter(5, schedule.paused())
                .setParameter(6, version)
                .setParameter(7, now)
                .setParameter(8, firedThrough)
                .setParameter(9, nextFireAt);
    }

    private static Instant instantOrNull(Object timestamp) {
        return timestamp == null ? null : SqlTimestamps.toInstant(timestamp);
    }
}
