package dev.ductor.aggregate;

import jakarta.persistence.Query;

import java.util.List;

/** What the aggregates' projections share; each keeps its statements, on its own table, in its own package. */
public final class ProjectionRows {

    private ProjectionRows() {
    }

    /**
     * The version a projection's row reflects, 0 when there is no row: {@code select} reads {@code db_record_version}
     * by {@code tenant = ?1 AND name = ?2}.
     */
    @SuppressWarnings("unchecked")
    public static long version(Query select, String tenant, String name) {
        List<Number> rows = select.setParameter(1, tenant)
                .setParameter(2, name)
                .getResultList();
        return rows.isEmpty() ? 0 : rows.get(0).longValue();
    }
}
