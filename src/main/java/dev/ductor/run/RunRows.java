package dev.ductor.run;

import dev.ductor.config.SqlTimestamps;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.database.MultiRowInsert;
import dev.ductor.database.StatementCommitUncertain;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.run.core.Transition;
import dev.ductor.workflow.WorkflowService;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PersistenceException;
import org.hibernate.Session;
import org.hibernate.StaleStateException;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The one writer of the run row ({@code eec_workflow_run}); {@code ArchitectureTest} fails the build when any other
 * class writes it (a statement on the table that is not a read, a field of {@link WorkflowRunEntity} set, a run entity
 * persisted, merged or removed). Every change is the versioned UPDATE: the row is pinned by
 * {@code db_record_version}, bumped by one, and a change that matched no row is a lost race, never a silent no-op.
 * <ul>
 *   <li>{@link #insert}: new runs, at version 0, in one multi-row INSERT ({@code RunStarter});</li>
 *   <li>{@link #write}, {@link #changeTier}, {@link #reseal}: a loaded run's change, through Hibernate's
 *   {@code @Version} UPDATE at the flush; a stale version raises and is turned into {@link RunConflictException}
 *   ({@code RunCommitter}, the one load, tick, commit shell);</li>
 *   <li>{@link #lock} and {@link #update}: many runs at once, for the group commit: one SELECT that locks all of them,
 *   and their versioned UPDATEs as one statement whose returned ids say which runs it wrote. Plain JDBC on purpose:
 *   Hibernate's flush of a batch raises one exception for the whole batch when a single row lost its race (and marks
 *   the transaction rollback-only), while the ids the statement returns tell exactly which runs lost, so their
 *   neighbours still commit.</li>
 *   <li>{@link #lockFinished} and {@link #deleteFinished}: retention's end of a run, the one DELETE of the row: of the
 *   runs it locked, each still at the version it was judged on and, in the DELETE itself, still finished.</li>
 * </ul>
 */
@ApplicationScoped
public class RunRows {

    /** A run row as a tick needs it (the output only to verify the checksum, which covers it). */
    public record Row(UUID runId, String tenant, String workflowName, int revision, String status, String tier,
                      String nodeStates, long lastSeq, String checksum, long version, String input, String output,
                      ParentLink parent) {
    }

    /** The parent run, node and attempt a child run answers to. */
    public record ParentLink(UUID runId, String node, int attempt) {
    }

    /** A tick's new state for one run, to be written only if the run is still at {@code expectedVersion}. */
    public record Write(UUID runId, long expectedVersion, String status, String nodeStates, String checksum, long lastSeq,
                        String output) {
    }

    // Locks the group commit's runs as its UPDATE will, in run id order, before it touches their task rows: every writer
    // of both tables takes a run row before that run's task rows (a coordinator's tick writes the run, then deletes or
    // supersedes its tasks), so two of them never each hold what the other waits for. FOR NO KEY UPDATE, the UPDATE's
    // own lock, leaves inserts that reference the run (an inbox delivery, a history row) free to go on.
    private static final String LOCK = """
            SELECT run_id, tenant, workflow_name, workflow_revision, status, tier, CAST(node_states AS text),
                   last_transition_seq, state_checksum, db_record_version, CAST(input AS text), CAST(output AS text),
                   parent_run_id, parent_node, parent_attempt
              FROM eec_workflow_run WHERE run_id = ANY(?) ORDER BY run_id FOR NO KEY UPDATE""";

    // One statement for all of a group commit's runs: each row's own versioned change, the same check and bump as
    // the entity's @Version UPDATE, with its new values taken from bound arrays (w) instead of one execution per run.
    // A batch of single-row UPDATEs cost an execution, a Bind, and a firing of the run table's statement trigger
    // (the change feed's) per run; this costs one of each per commit. Rows are locked in the arrays' order (a nested
    // loop over them, index lookups by key: the group commit's PlannerSettings), which the caller sorts by run id.
    static final String UPDATE = """
            UPDATE eec_workflow_run
               SET status = w.status, node_states = CAST(w.node_states AS jsonb), state_checksum = w.checksum,
                   last_transition_seq = w.last_seq, output = CAST(w.output AS jsonb), updated_at = ?,
                   db_record_version = db_record_version + 1
              FROM unnest(CAST(? AS uuid[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS text[]),
                          CAST(? AS text[]), CAST(? AS bigint[]), CAST(? AS text[]))
                   AS w(id, expected_version, status, node_states, checksum, last_seq, output)
             WHERE run_id = w.id AND db_record_version = w.expected_version
            RETURNING run_id""";

    /**
     * A new run's row, with its first tick applied: {@link #insert} writes it at version 0. {@code tags} is the JSON
     * object of its tags, null for none: bound as NULL, so a start without tags writes no entry into their index.
     */
    public record NewRun(UUID runId, String tenant, String workflowName, int revision, String status, String tier,
                         String nodeStates, long lastSeq, String checksum, String input, String output,
                         String idempotencyKey, String correlationKey, String fingerprint, ParentLink parent, String tags) {

        public NewRun(UUID runId, String tenant, String workflowName, int revision, String status, String tier,
                      String nodeStates, long lastSeq, String checksum, String input, String output,
                      String idempotencyKey, String correlationKey, String fingerprint) {
            this(runId, tenant, workflowName, revision, status, tier, nodeStates, lastSeq, checksum, input, output,
                    idempotencyKey, correlationKey, fingerprint, null, null);
        }
    }

    private static final MultiRowInsert INSERT = new MultiRowInsert("""
            INSERT INTO eec_workflow_run (run_id, tenant, workflow_name, workflow_revision, status, tier, node_states,
                                          last_transition_seq, state_checksum, db_record_version, input, output,
                                          idempotency_key, correlation_key, created_at, updated_at, request_fingerprint,
                                          parent_run_id, parent_node, parent_attempt, tags)
            VALUES (?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?, ?, 0, CAST(? AS jsonb), CAST(? AS jsonb), ?, ?, ?, ?, ?, ?, ?, ?,
                    CAST(? AS jsonb))
            ON CONFLICT (tenant, workflow_name, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
            RETURNING run_id""");

    /** A start whose rows {@link #start} writes: its run row (at version 0) and its first transitions. */
    public record NewStart(NewRun run, Instant createdAt, List<Transition> transitions) {
    }

    /** What {@link #start} wrote: the runs inserted, and the ids of their leased items by task key. */
    public record StartsWritten(Set<UUID> runs, Map<String, Long> leasedIds) {
    }

    // A group of API starts in one statement, so in one round trip that is also its commit (autocommit): the runs, their
    // history and their first queue items, each table's rows from bound arrays. A transactional start takes five
    // round trips (the revision's SELECT, three INSERTs, the COMMIT) and the JTA and Hibernate work around them, all
    // while holding the one start committer that every start waits for.
    // - A run is inserted only while the revision its first tick was computed on is still the workflow's current one
    //   (the caller's guess, checked in the snapshot the insert sees), and only if its idempotency key is free: ON
    //   CONFLICT DO NOTHING, the unique index deciding, as in INSERT. Rows go in in key order (KEY_ORDER, stable), so
    //   of two starts with one key in one group the first wins.
    // - History and queue rows are written only for runs the first part returned: a start not inserted leaves nothing.
    // - The revision's predicate and the queue's INSERT are their owners' SQL (WorkflowService, QueueRepository).
    static final String START = """
            WITH started AS (
                INSERT INTO eec_workflow_run (run_id, tenant, workflow_name, workflow_revision, status, tier, node_states,
                                              last_transition_seq, state_checksum, db_record_version, input, output,
                                              idempotency_key, correlation_key, created_at, updated_at, request_fingerprint,
                                              tags)
                SELECT r.run_id, r.tenant, r.workflow_name, r.revision, r.status, r.tier, CAST(r.node_states AS jsonb),
                       r.last_seq, r.checksum, 0, CAST(r.input AS jsonb), CAST(r.output AS jsonb), r.idempotency_key,
                       r.correlation_key, r.created_at, r.created_at, r.fingerprint, CAST(r.tags AS jsonb)
                  FROM unnest(CAST(? AS uuid[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS integer[]),
                              CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS bigint[]),
                              CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]),
                              CAST(? AS text[]), CAST(? AS timestamptz[]), CAST(? AS text[]), CAST(? AS text[]))
                       WITH ORDINALITY
                       AS r(run_id, tenant, workflow_name, revision, status, tier, node_states, last_seq, checksum, input,
                            output, idempotency_key, correlation_key, created_at, fingerprint, tags, ord)
                 WHERE %s
                 ORDER BY r.ord
                ON CONFLICT (tenant, workflow_name, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
                RETURNING run_id),
            history AS (
                INSERT INTO eec_run_transition (run_id, seq, at, node_id, from_state, to_state, cause)
                SELECT t.run_id, t.seq, t.at, t.node_id, t.from_state, t.to_state, t.cause
                  FROM unnest(CAST(? AS uuid[]), CAST(? AS bigint[]), CAST(? AS timestamptz[]), CAST(? AS text[]),
                              CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]))
                       AS t(run_id, seq, at, node_id, from_state, to_state, cause)
                 WHERE t.run_id IN (SELECT run_id FROM started)),
            queued AS (%s)
            SELECT run_id, CAST(NULL AS bigint), CAST(NULL AS text) FROM started
            UNION ALL
            SELECT CAST(NULL AS uuid), id, task_key FROM queued WHERE lease_token IS NOT NULL""".formatted(
            WorkflowService.isCurrentRevision("r.tenant", "r.workflow_name", "r.revision"),
            QueueRepository.insertItemsFromArrays("started"));

    /**
     * The order in which every multi-row insert of runs takes their idempotency keys: two pods' groups that share keys
     * would otherwise each hold one the other waits for on the unique index. Stable, so of two starts with one key in
     * one group the first still wins.
     */
    static final Comparator<NewRun> KEY_ORDER = Comparator.comparing(NewRun::tenant)
            .thenComparing(NewRun::workflowName)
            .thenComparing(NewRun::idempotencyKey, Comparator.nullsLast(Comparator.naturalOrder()));

    @Inject EntityManager em;
    @Inject AgroalDataSource dataSource;

    /**
     * Writes a group of starts in one statement on a connection of its own, committed by itself (autocommit): outside
     * any transaction, so the caller must not be in one. A start is written whole or not at all: not when its
     * idempotency key is taken or its revision is no longer the current one (the caller then starts it the
     * transactional way, {@code RunStarter#startAll}, which tells which). A failure of the statement after it was sent
     * may have been committed ({@link StatementCommitUncertain}); a failure before it, a refused connection, was not.
     * The first queue items of the starts, {@code queued} and {@code leased} (to this pod), are inserted at {@code now}
     * for the runs inserted only.
     */
    public StartsWritten start(List<NewStart> group, List<NewQueueItem> queued, List<QueueRepository.LeasedItem> leased,
                               Instant now) {
        List<NewStart> starts = group.stream().sorted(Comparator.comparing(NewStart::run, KEY_ORDER)).toList();
        int runs = starts.size();
        UUID[] runIds = new UUID[runs];
        String[] tenants = new String[runs], workflows = new String[runs], statuses = new String[runs],
                tiers = new String[runs], nodeStates = new String[runs], checksums = new String[runs],
                inputs = new String[runs], outputs = new String[runs], keys = new String[runs],
                correlations = new String[runs], createdAt = new String[runs], fingerprints = new String[runs],
                tags = new String[runs];
        Integer[] revisions = new Integer[runs];
        Long[] lastSeqs = new Long[runs];
        List<Object[]> history = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            NewStart start = starts.get(i);
            NewRun run = start.run();
            runIds[i] = run.runId();
            tenants[i] = run.tenant();
            workflows[i] = run.workflowName();
            revisions[i] = run.revision();
            statuses[i] = run.status();
            tiers[i] = run.tier();
            nodeStates[i] = run.nodeStates();
            lastSeqs[i] = run.lastSeq();
            checksums[i] = run.checksum();
            inputs[i] = run.input();
            outputs[i] = run.output();
            keys[i] = run.idempotencyKey();
            correlations[i] = run.correlationKey();
            createdAt[i] = SqlTimestamps.text(start.createdAt());
            fingerprints[i] = run.fingerprint();
            tags[i] = run.tags();
            for (Transition t : start.transitions()) {
                history.add(new Object[] {run.runId(), t.seq(), createdAt[i], t.node(), t.from(), t.to(), t.cause()});
            }
        }
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement insert = connection.prepareStatement(START)) {
                int p = 0;
                insert.setArray(++p, connection.createArrayOf("uuid", runIds));
                insert.setArray(++p, connection.createArrayOf("text", tenants));
                insert.setArray(++p, connection.createArrayOf("text", workflows));
                insert.setArray(++p, connection.createArrayOf("integer", revisions));
                insert.setArray(++p, connection.createArrayOf("text", statuses));
                insert.setArray(++p, connection.createArrayOf("text", tiers));
                insert.setArray(++p, connection.createArrayOf("text", nodeStates));
                insert.setArray(++p, connection.createArrayOf("bigint", lastSeqs));
                insert.setArray(++p, connection.createArrayOf("text", checksums));
                insert.setArray(++p, connection.createArrayOf("text", inputs));
                insert.setArray(++p, connection.createArrayOf("text", outputs));
                insert.setArray(++p, connection.createArrayOf("text", keys));
                insert.setArray(++p, connection.createArrayOf("text", correlations));
                insert.setArray(++p, connection.createArrayOf("text", createdAt));
                insert.setArray(++p, connection.createArrayOf("text", fingerprints));
                insert.setArray(++p, connection.createArrayOf("text", tags));
                String[] historyTypes = {"uuid", "bigint", "text", "text", "text", "text", "text"};
                for (int c = 0; c < historyTypes.length; c++) {
                    insert.setArray(++p, connection.createArrayOf(historyTypes[c], column(history, c)));
                }
                QueueRepository.bindItemArrays(insert, p, queued, leased, now);
                Set<UUID> inserted = new HashSet<>();
                Map<String, Long> leasedIds = new HashMap<>();
                try (ResultSet rs = executeCommitting(insert)) {
                    while (rs.next()) {
                        UUID runId = rs.getObject(1, UUID.class);
                        if (runId != null) {
                            inserted.add(runId);
                        } else {
                            leasedIds.put(rs.getString(3), rs.getLong(2));
                        }
                    }
                }
                return new StartsWritten(inserted, leasedIds);
            }
        } catch (SQLException failed) {
            throw new PersistenceException("a group of starts could not be written", failed);
        }
    }

    private static Object[] column(List<Object[]> rows, int c) {
        Object[] values = new Object[rows.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = rows.get(i)[c];
        }
        return values;
    }

    /** Executes a statement that commits by itself; once sent, its failure leaves the commit uncertain. */
    private static ResultSet executeCommitting(PreparedStatement statement) throws SQLException {
        try {
            return statement.executeQuery();
        } catch (SQLException failed) {
            throw DatabaseOutage.isOutage(failed) ? new StatementCommitUncertain(failed) : failed;
        }
    }


    /**
     * Inserts the runs in one multi-row INSERT ({@link MultiRowInsert}); returns those inserted. A run whose
     * idempotency key is taken, by an earlier start or by one before it in this very batch, is not: the unique index
     * decides, through {@code ON CONFLICT DO NOTHING}, so two concurrent starts can never both win. Plain JDBC: on the
     * hot path of every start, Hibernate's native-query handling cost more than the INSERT.
     */
    public Set<UUID> insert(List<NewRun> batch, Instant now) {
        if (batch.isEmpty()) {
            return Set.of();
        }
        List<NewRun> runs = batch.stream().sorted(KEY_ORDER).toList();
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(INSERT.sql(runs.size()))) {
                for (int i = 0; i < runs.size(); i++) {
                    NewRun run = runs.get(i);
                    int p = INSERT.offset(i);
                    insert.setObject(p + 1, run.runId());
                    insert.setString(p + 2, run.tenant());
                    insert.setString(p + 3, run.workflowName());
                    insert.setInt(p + 4, run.revision());
                    insert.setString(p + 5, run.status());
                    insert.setString(p + 6, run.tier());
                    insert.setString(p + 7, run.nodeStates());
                    insert.setLong(p + 8, run.lastSeq());
                    insert.setString(p + 9, run.checksum());
                    insert.setString(p + 10, run.input());
                    insert.setString(p + 11, run.output());
                    insert.setString(p + 12, run.idempotencyKey());
                    insert.setString(p + 13, run.correlationKey());
                    SqlTimestamps.bind(insert, p + 14, now);
                    SqlTimestamps.bind(insert, p + 15, now);
                    insert.setString(p + 16, run.fingerprint());
                    insert.setObject(p + 17, run.parent() == null ? null : run.parent().runId(), java.sql.Types.OTHER);
                    insert.setString(p + 18, run.parent() == null ? null : run.parent().node());
                    insert.setObject(p + 19, run.parent() == null ? null : run.parent().attempt(), java.sql.Types.INTEGER);
                    insert.setString(p + 20, run.tags());
                }
                Set<UUID> inserted = new HashSet<>();
                try (ResultSet keys = insert.executeQuery()) {
                    while (keys.next()) {
                        inserted.add(keys.getObject(1, UUID.class));
                    }
                }
                return inserted;
            }
        });
    }

    /**
     * A tick's new state on a loaded run, written at once by Hibernate's versioned UPDATE (so a lost race fails before
     * anything else of the tick is written). A stale version is {@link RunConflictException}, naming the version and
     * seq the winner left.
     */
    public void write(WorkflowRunEntity run, String status, String nodeStates, long lastSeq, String output, String checksum,
                      Instant now) {
        long expected = run.dbRecordVersion;
        run.status = status;
        run.nodeStates = nodeStates;
        run.lastTransitionSeq = lastSeq;
        run.output = output;
        run.stateChecksum = checksum;
        run.updatedAt = now;
        flushVersioned(run, expected);
    }

    /** An operator's new tier, written with the run's next {@link #write} or {@link #reseal}. */
    public void changeTier(WorkflowRunEntity run, String tier, Instant now) {
        run.tier = tier;
        run.updatedAt = now;
    }

    /** A reset's new revision (the workflow's current one), written with the run's next {@link #write}. */
    public void changeRevision(WorkflowRunEntity run, int revision) {
        run.workflowRevision = revision;
    }

    /** A change without a tick (a new tier only) under a new seal, still through the versioned UPDATE. */
    public void reseal(WorkflowRunEntity run, String checksum) {
        long expected = run.dbRecordVersion;
        run.stateChecksum = checksum;
        try {
            em.flush();
        } catch (OptimisticLockException | StaleStateException lost) {
            throw new RunConflictException(run.runId, expected, null, null);
        }
    }

    /**
     * Bumps a loaded run's version without changing its state: a tick that decides nothing but that its wakeups may be
     * acked while inputs stay pending makes that decision part of the row's version, so a writer that read the run
     * before those inputs arrived loses its race.
     */
    public void touch(WorkflowRunEntity run, Instant now) {
        long expected = run.dbRecordVersion;
        run.updatedAt = now;
        flushVersioned(run, expected);
    }

    /** Flushes the run's change through Hibernate's versioned UPDATE; a stale version names what the winner left. */
    private void flushVersioned(WorkflowRunEntity run, long expected) {
        try {
            em.flush();
        } catch (OptimisticLockException | StaleStateException lost) {
            long[] current = current(run.runId);
            throw new RunConflictException(run.runId, expected, current == null ? null : current[0],
                    current == null ? null : current[1]);
        }
    }

    /**
     * The version and seq the winner left, read on the same connection without flushing the failed session: a
     * zero-row UPDATE is not an SQL error, so the transaction can still answer before it rolls back.
     */
    private long[] current(UUID runId) {
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT db_record_version, last_transition_seq FROM eec_workflow_run WHERE run_id = ?")) {
                statement.setObject(1, runId);
                try (ResultSet rs = statement.executeQuery()) {
                    return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : null;
                }
            }
        });
    }

    /**
     * Many runs read and locked in one statement, in run id order ({@link #LOCK}), until the transaction ends. What the
     * caller reads after this (the runs' inboxes) is read under the lock: nothing committed for a run before the lock
     * was granted is missed, and a tick that would decide on the run meanwhile waits for this transaction.
     */
    public Map<UUID, Row> lock(Collection<UUID> runIds) {
        if (runIds.isEmpty()) {
            return Map.of();
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            Map<UUID, Row> rows = new HashMap<>();
            try (PreparedStatement select = connection.prepareStatement(LOCK)) {
                Array ids = connection.createArrayOf("uuid", runIds.toArray());
                select.setArray(1, ids);
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        UUID id = rs.getObject(1, UUID.class);
                        rows.put(id, new Row(id, rs.getString(2), rs.getString(3), rs.getInt(4), rs.getString(5),
                                rs.getString(6), rs.getString(7), rs.getLong(8), rs.getString(9), rs.getLong(10),
                                rs.getString(11), rs.getString(12), parent(rs.getObject(13, UUID.class),
                                rs.getString(14), rs.getInt(15))));
                    }
                }
            }
            return rows;
        });
    }

    private static ParentLink parent(UUID runId, String node, int attempt) {
        return runId == null ? null : new ParentLink(runId, node, attempt);
    }

    /**
     * Writes each run if it is still at the version its tick was computed on; the answer says, per write in the
     * given order, whether it won. Callers pass the writes sorted by run id: every multi-run writer locks rows
     * in that order, so two batches waiting on each other's rows cannot deadlock.
     */
    public boolean[] update(List<Write> writes, Instant now) {
        if (writes.isEmpty()) {
            return new boolean[0];
        }
        int n = writes.size();
        UUID[] ids = new UUID[n];
        Long[] versions = new Long[n];
        String[] statuses = new String[n];
        String[] nodeStates = new String[n];
        String[] checksums = new String[n];
        Long[] lastSeqs = new Long[n];
        String[] outputs = new String[n];
        for (int i = 0; i < n; i++) {
            Write write = writes.get(i);
            ids[i] = write.runId();
            versions[i] = write.expectedVersion();
            statuses[i] = write.status();
            nodeStates[i] = write.nodeStates();
            checksums[i] = write.checksum();
            lastSeqs[i] = write.lastSeq();
            outputs[i] = write.output();
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement update = connection.prepareStatement(UPDATE)) {
                SqlTimestamps.bind(update, 1, now);
                update.setArray(2, connection.createArrayOf("uuid", ids));
                update.setArray(3, connection.createArrayOf("bigint", versions));
                update.setArray(4, connection.createArrayOf("text", statuses));
                update.setArray(5, connection.createArrayOf("text", nodeStates));
                update.setArray(6, connection.createArrayOf("text", checksums));
                update.setArray(7, connection.createArrayOf("bigint", lastSeqs));
                update.setArray(8, connection.createArrayOf("text", outputs));
                Set<UUID> written = new HashSet<>();
                try (ResultSet rs = update.executeQuery()) {
                    while (rs.next()) {
                        written.add(rs.getObject(1, UUID.class));
                    }
                }
                boolean[] won = new boolean[n];
                for (int i = 0; i < n; i++) {
                    won[i] = written.contains(ids[i]);
                }
                return won;
            }
        });
    }

    // Retention's lock: FOR UPDATE, the DELETE's own lock, so from here to the commit no tick, reset or inbox delivery
    // (whose foreign key check takes KEY SHARE) can touch the runs. SKIP LOCKED: a run some tick holds is busy, not
    // expired, and another pod's retention batch takes other runs instead of waiting for this one's. In run id order,
    // as every multi-run writer locks.
    private static final String LOCK_FINISHED = """
            SELECT run_id, db_record_version FROM eec_workflow_run
             WHERE run_id = ANY(?) AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')
             ORDER BY run_id FOR UPDATE SKIP LOCKED""";

    // The status is checked again here, not only in the scan that chose the runs: a finished run may have been reset to
    // RUNNING since (POST /runs/{id}/reset), which also moved its version; either check alone would refuse it.
    static final String DELETE_FINISHED = """
            DELETE FROM eec_workflow_run
             USING unnest(CAST(? AS uuid[]), CAST(? AS bigint[])) AS w(id, expected_version)
             WHERE run_id = w.id AND db_record_version = w.expected_version
               AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')
            RETURNING run_id""";

    /**
     * Locks those of the runs that are finished and not locked by anyone else, until the transaction ends; the answer
     * maps each locked run to its version. A run left out is running, busy or gone.
     */
    public Map<UUID, Long> lockFinished(Collection<UUID> runIds) {
        if (runIds.isEmpty()) {
            return Map.of();
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            Map<UUID, Long> locked = new HashMap<>();
            try (PreparedStatement select = connection.prepareStatement(LOCK_FINISHED)) {
                select.setArray(1, connection.createArrayOf("uuid", runIds.toArray()));
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        locked.put(rs.getObject(1, UUID.class), rs.getLong(2));
                    }
                }
            }
            return locked;
        });
    }

    /**
     * Deletes each run that is still at the given version and finished; the answer is the runs deleted. The caller
     * deletes the rows that reference a run (history, inbox, queue) first, in the same transaction.
     */
    public Set<UUID> deleteFinished(Map<UUID, Long> expectedVersions) {
        if (expectedVersions.isEmpty()) {
            return Set.of();
        }
        UUID[] ids = expectedVersions.keySet().stream().sorted().toArray(UUID[]::new);
        Long[] versions = new Long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            versions[i] = expectedVersions.get(ids[i]);
        }
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement delete = connection.prepareStatement(DELETE_FINISHED)) {
                delete.setArray(1, connection.createArrayOf("uuid", ids));
                delete.setArray(2, connection.createArrayOf("bigint", versions));
                Set<UUID> deleted = new HashSet<>();
                try (ResultSet rs = delete.executeQuery()) {
                    while (rs.next()) {
                        deleted.add(rs.getObject(1, UUID.class));
                    }
                }
                return deleted;
            }
        });
    }
}
