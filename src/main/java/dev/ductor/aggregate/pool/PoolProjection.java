package dev.ductor.aggregate.pool;

import dev.ductor.aggregate.ProjectionRows;
import dev.ductor.aggregate.core.PoolState;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;

import java.time.Instant;
import java.util.List;

/**
 * {@code eec_pool}, the pools' read model for the task claim, written only in the transaction that appends the
 * events it derives from. Every write is version-checked: an insert only where no row is, an update only from
 * the version it was decided on; a write that matches nothing reports it (false), it never overwrites.
 */
@ApplicationScoped
public class PoolProjection {

    @Inject EntityManager em;

    /** The tenant's pool names, sorted. */
    @SuppressWarnings("unchecked")
    public List<String> names(String tenant) {
        return em.createNativeQuery("SELECT name FROM eec_pool WHERE tenant = ?1 ORDER BY name")
                .setParameter(1, tenant)
                .getResultList();
    }

    /** The first row of a new pool; false when a row is already there. */
    public boolean insert(String tenant, String name, PoolState state, Instant now) {
        return withRow(em.createNativeQuery("""
                        INSERT INTO eec_pool (tenant, name, capacity, paused, db_record_version, updated_at)
                        VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                        ON CONFLICT (tenant, name) DO NOTHING"""), tenant, name, state, now)
                .executeUpdate() == 1;
    }

    /** Moves the row from {@code expectedVersion} to {@code state}; false when it is not at that version. */
    public boolean update(String tenant, String name, long expectedVersion, PoolState state, Instant now) {
        return withRow(em.createNativeQuery("""
                        UPDATE eec_pool SET capacity = ?3, paused = ?4, db_record_version = ?5, updated_at = ?6
                         WHERE tenant = ?1 AND name = ?2 AND db_record_version = ?7"""), tenant, name, state, now)
                .setParameter(7, expectedVersion)
                .executeUpdate() == 1;
    }

    /** Removes the row at {@code expectedVersion}; false when it is not at that version. */
    public boolean delete(String tenant, String name, long expectedVersion) {
        return em.createNativeQuery("DELETE FROM eec_pool WHERE tenant = ?1 AND name = ?2 AND db_record_version = ?3")
                .setParameter(1, tenant)
                .setParameter(2, name)
                .setParameter(3, expectedVersion)
                .executeUpdate() == 1;
    }

    /** The version the row reflects, 0 when there is no row. */
    public long version(String tenant, String name) {
        return ProjectionRows.version(em.createNativeQuery(
                "SELECT db_record_version FROM eec_pool WHERE tenant = ?1 AND name = ?2"), tenant, name);
    }

    /** Binds ?1 to ?6, the row as insert and update both write it. */
    private static Query withRow(Query query, String tenant, String name, PoolState state, Instant now) {
        return query.setParameter(1, tenant)
                .setParameter(2, name)
                .setParameter(3, state.capacity())
                .setParameter(4, state.paused())
                .setParameter(5, state.version())
                .setParameter(6, now);
    }
}
