package dev.ductor.support;

import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.persistence.EntityManager;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** Work done in a transaction that is rolled back whatever happens: for EXPLAINs that need DDL or data of their own. */
public final class RolledBack {

    private RolledBack() {
    }

    /** Runs {@code work} in a new transaction, rolls it back, and returns what {@code work} returned. */
    public static <T> T call(Callable<T> work) throws Exception {
        QuarkusTransaction.begin();
        try {
            return work.call();
        } finally {
            QuarkusTransaction.rollback();
        }
    }

    /** PostgreSQL's plan for {@code sql} with its named parameters bound, in the caller's transaction. */
    @SuppressWarnings("unchecked")
    public static String explain(EntityManager em, String sql, Map<String, Object> params) {
        var query = em.createNativeQuery("EXPLAIN " + sql);
        params.forEach(query::setParameter);
        return ((List<Object>) query.getResultList()).stream().map(Object::toString).collect(Collectors.joining("\n"));
    }
}
