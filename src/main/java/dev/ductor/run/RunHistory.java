package dev.ductor.run;

import dev.ductor.config.SqlTimestamps;
import dev.ductor.run.core.Transition;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Appends history rows in the caller's transaction. One JDBC batch for all of a commit's transitions, of one run
 * or of many (pgjdbc sends it as multi-row INSERTs): a step writes two or three of them and a group commit a few
 * dozen, none ever read back in that transaction, so they have no business in Hibernate's session. Reads go through
 * {@link RunTransitionEntity}.
 */
@ApplicationScoped
public class RunHistory {

    private static final String INSERT = """
            INSERT INTO eec_run_transition (run_id, seq, at, node_id, from_state, to_state, cause)
            VALUES (?, ?, ?, ?, ?, ?, ?)""";

    @Inject EntityManager em;

    public void append(UUID runId, List<Transition> transitions, Instant at) {
        append(Map.of(runId, transitions), at);
    }

    public void append(Map<UUID, List<Transition>> byRun, Instant at) {
        if (byRun.values().stream().allMatch(List::isEmpty)) {
            return;
        }
        em.unwrap(Session.class).doWork(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
                for (Map.Entry<UUID, List<Transition>> run : byRun.entrySet()) {
                    for (Transition transition : run.getValue()) {
                        insert.setObject(1, run.getKey());
                        insert.setLong(2, transition.seq());
                        SqlTimestamps.bind(insert, 3, at);
                        insert.setString(4, transition.node());
                        insert.setString(5, transition.from());
                        insert.setString(6, transition.to());
                        insert.setString(7, transition.cause());
                        insert.addBatch();
                    }
                }
                insert.executeBatch();
            }
        });
    }
}
