package dev.ductor.run.retention;

import dev.ductor.queue.QueueRepository;
import dev.ductor.run.RunRows;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Deletes whole run trees and every row their runs own (history, inbox, queue rows, dead letters included), in the
 * caller's transaction. Decides nothing by itself but what it re-checks under lock: a tree goes only if every run of it
 * is locked here, still finished and still at the version it was judged on; a tree one of whose runs is busy (locked by
 * a tick or another pod's batch) or changed (reset, retried) stays whole, for a later pass to judge again.
 */
@ApplicationScoped
public class RunPurge {

    /** Rows deleted per table by one purge. */
    public record Deleted(int runs, int transitions, int inbox, int queueItems) {
        public static final Deleted NONE = new Deleted(0, 0, 0, 0);
    }

    @Inject EntityManager em;
    @Inject RunRows rows;
    @Inject QueueRepository queue;

    /** {@code trees}: per top-level run, every run of its tree with the version it was judged on. */
    public Deleted purge(Collection<Map<UUID, Long>> trees) {
        Map<UUID, Long> judged = new HashMap<>();
        trees.forEach(judged::putAll);
        if (judged.isEmpty()) {
            return Deleted.NONE;
        }
        // Every lock below is taken without waiting (SKIP LOCKED) but for the rows the runs own, which their writers
        // hold only as long as one statement or one commit; bounded all the same, so a batch never hangs a pod's pass.
        execute("SELECT set_config('lock_timeout', '5s', true)");
        Map<UUID, Long> locked = rows.lockFinished(judged.keySet());
        Map<UUID, Long> doomed = new HashMap<>();
        for (Map<UUID, Long> tree : trees) {
            if (tree.entrySet().stream().allMatch(run -> run.getValue().equals(locked.get(run.getKey())))) {
                doomed.putAll(tree);
            }
        }
        if (doomed.isEmpty()) {
            return Deleted.NONE;
        }
        UUID[] ids = doomed.keySet().stream().sorted().toArray(UUID[]::new);
        // The history trigger (V18) lets a transition go only in a transaction that says this, and only while its run
        // is finished: the runs are locked finished above, so it is.
        execute("SELECT set_config('ductor.retention', 'purge', true)");
        int transitions = deleteOwned("DELETE FROM eec_run_transition WHERE run_id = ANY(?)", ids);
        int inbox = deleteOwned("DELETE FROM eec_run_inbox WHERE run_id = ANY(?)", ids);
        int queued = queue.deleteEverythingOfRuns(Set.of(ids));
        Set<UUID> deleted = rows.deleteFinished(doomed);
        if (deleted.size() != doomed.size()) {
            // Cannot happen while the locks hold; if it ever does, nothing of this batch is kept half-deleted.
            throw new IllegalStateException("retention deleted " + deleted.size() + " of " + doomed.size()
                    + " locked finished runs; the batch is rolled back");
        }
        return new Deleted(deleted.size(), transitions, inbox, queued);
    }

    private void execute(String sql) {
        em.unwrap(Session.class).doWork(connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        });
    }

    private int deleteOwned(String sql, UUID[] runIds) {
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement delete = connection.prepareStatement(sql)) {
                delete.setArray(1, connection.createArrayOf("uuid", runIds));
                return delete.executeUpdate();
            }
        });
    }
}
