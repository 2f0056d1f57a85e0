package dev.ductor.run;

import dev.ductor.config.SqlTimestamps;
import dev.ductor.database.DatabaseOutage;
import dev.ductor.database.StatementCommitUncertain;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueRepository;
import dev.ductor.run.core.Transition;
import dev.ductor.workflow.WorkflowService;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import org.hibernate.Session;

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
 * class writes it, and when the row has more write statements than these three, which sit with the row's reads and
 * locks at the top of this class:
 * <ul>
 *   <li>{@link #UPDATE}, the one change of a run: pinned by {@code db_record_version}, bumped by one, each run's new
 *   values from bound arrays, the ids it wrote returned, so a change that matched no row is a lost race, never a silent
 *   no-op. A single command's change ({@link #write}, from {@code RunCommitter}, the one load, tick, commit shell) is
 *   that statement with arrays of one, and a lost race is {@link RunConflictException}; a group commit's
 *   ({@link #update}) is the same statement over many runs, whose returned ids say which ones lost, so their
 *   neighbours still commit. Plain JDBC on the transaction's connection, so it commits with the history and outbox
 *   rows written beside it; the run entity is read-only and never flushed.</li>
 *   <li>{@link #INSERT}, new runs at version 0, one statement for any number of them: in the caller's transaction
 *   ({@link #insert}, {@code RunStarter}), or as the first part of a group of API starts that commits by itself
 *   ({@link #start}).</li>
 *   <li>{@link #DELETE_FINISHED}: retention's end of a run, the one DELETE of the row: of the runs
 *   {@link #lockFinished} locked, each still at the version it was judged on and, in the DELETE itself, still
 *   finished.</li>
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

    /**
     * A run's new state, to be written only if the run is still at {@code expectedVersion}: every column a change of the
     * row may set (a tick's state, an operator's tier, a reset's revision), so one UPDATE writes them all.
     */
    public record Write(UUID runId, long expectedVersion, String status, String tier, int revision, String nodeStates,
                        String checksum, long lastSeq, String output) {

        /** The row as it is, to be written again at the next version: a change of the row's version alone. */
        public static Write unchanged(Row row) {
            return new Write(row.runId(), row.version(), row.status(), row.tier(), row.revision(), row.nodeStates(),
                    row.checksum(), row.lastSeq(), row.output());
        }
    }

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

    /** A start whose rows {@link #start} writes: its run row (at version 0) and its first transitions. */
    public record NewStart(NewRun run, Instant createdAt, List<Transition> transitions) {
    }

    /** What {@link #start} wrote: the runs inserted, and the ids of their leased items by task key. */
    public record StartsWritten(Set<UUID> runs, Map<String, Long> leasedIds) {
    }

    /**
     * The order in which every multi-row insert of runs takes their idempotency keys: two pods' groups that share keys
     * would otherwise each hold one the other waits for on the unique index. Stable, so of two starts with one key in
     * one group the first still wins.
     */
    static final Comparator<NewRun> KEY_ORDER = Comparator.comparing(NewRun::tenant)
            .thenComparing(NewRun::workflowName)
            .thenComparing(NewRun::idempotencyKey, Comparator.nullsLast(Comparator.naturalOrder()));

    // ---- Every statement on eec_workflow_run this class runs: its reads and locks, the one UPDATE, the one INSERT
    // (with START, which embeds it), and retention's DELETE. ArchitectureTest checks there are no other writes.

    // The columns of a Row, in its order (row(ResultSet)).
    private static final String ROW_COLUMNS = """
            run_id, tenant, workflow_name, workflow_revision, status, tier, CAST(node_states AS text), last_transition_seq,
            state_checksum, db_record_version, CAST(input AS text), CAST(output AS text), parent_run_id, parent_node,
            parent_attempt""";

    // One run, for a tick: not locked, since the versioned UPDATE decides whether its change still applies.
    private static final String READ = "SELECT " + ROW_COLUMNS + " FROM eec_workflow_run WHERE run_id = ?";

    // Locks the group commit's runs as its UPDATE will, in run id order, before it touches their task rows: every writer
    // of both tables takes a run row before that run's task rows (a coordinator's tick writes the run, then deletes or
    // supersedes its tasks), so two of them never each hold what the other waits for. FOR NO KEY UPDATE, the UPDATE's
    // own lock, leaves inserts that reference the run (an inbox delivery, a history row) free to go on.
    private static final String LOCK = "SELECT " + ROW_COLUMNS
            + " FROM eec_workflow_run WHERE run_id = ANY(?) ORDER BY run_id FOR NO KEY UPDATE";

    // A run's version, under a share lock: a writer that has updated the row but not committed yet is waited for.
    private static final String VERSION_SHARED = "SELECT db_record_version FROM eec_workflow_run WHERE run_id = ? FOR SHARE";

    // What the winner of a lost race left, for the conflict's message.
    private static final String CURRENT = "SELECT db_record_version, last_transition_seq FROM eec_workflow_run WHERE run_id = ?";

    // The one UPDATE of the run row, for one run (arrays of one) and for a group commit's many: each row's own versioned
    // change, checked and bumped, with its new values taken from bound arrays (w). A batch of single-row UPDATEs cost an
    // execution, a Bind, and a firing of the run table's statement trigger (the change feed's) per run; this costs one
    // of each per commit. Rows are locked in the arrays' order (a nested loop over them, index lookups by key: the group
    // commit's PlannerSettings), which the caller sorts by run id. Setting a column to the value it has (the tier and
    // revision of most changes) keeps the update HOT: PostgreSQL compares the indexed values, not the SET list.
    static final String UPDATE = """
            UPDATE eec_workflow_run
               SET status = w.status, tier = w.tier, workflow_revision = w.revision,
                   node_states = CAST(w.node_states AS jsonb), state_checksum = w.checksum,
                   last_transition_seq = w.last_seq, output = CAST(w.output AS jsonb), updated_at = ?,
                   db_record_version = db_record_version + 1
              FROM unnest(CAST(? AS uuid[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS text[]),
                          CAST(? AS integer[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS bigint[]),
                          CAST(? AS text[]))
                   AS w(id, expected_version, status, tier, revision, node_states, checksum, last_seq, output)
             WHERE run_id = w.id AND db_record_version = w.expected_version
            RETURNING run_id""";

    // The one INSERT of the run row, for one run (arrays of one) and for many: each row from bound arrays (r), at
    // version 0, in the arrays' order (ORDER BY r.ord: the callers sort them by KEY_ORDER). A run whose idempotency key
    // is taken, by an earlier start or by one before it in this very statement, is not inserted: ON CONFLICT DO NOTHING,
    // the unique index deciding, so two concurrent starts can never both win. %s is which rows may go in: all of them
    // (INSERT_RUNS), or those whose revision is still current (START).
    static final String INSERT = """
            INSERT INTO eec_workflow_run (run_id, tenant, workflow_name, workflow_revision, status, tier, node_states,
                                          last_transition_seq, state_checksum, db_record_version, input, output,
                                          idempotency_key, correlation_key, created_at, updated_at, request_fingerprint,
                                          parent_run_id, parent_node, parent_attempt, tags)
            SELECT r.run_id, r.tenant, r.workflow_name, r.revision, r.status, r.tier, CAST(r.node_states AS jsonb),
                   r.last_seq, r.checksum, 0, CAST(r.input AS jsonb), CAST(r.output AS jsonb), r.idempotency_key,
                   r.correlation_key, r.created_at, r.created_at, r.fingerprint, r.parent_run_id, r.parent_node,
                   r.parent_attempt, CAST(r.tags AS jsonb)
              FROM unnest(CAST(? AS uuid[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS integer[]),
                          CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS bigint[]),
                          CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]),
                          CAST(? AS text[]), CAST(? AS timestamptz[]), CAST(? AS text[]), CAST(? AS uuid[]),
                          CAST(? AS text[]), CAST(? AS integer[]), CAST(? AS text[]))
                   WITH ORDINALITY
                   AS r(run_id, tenant, workflow_name, revision, status, tier, node_states, last_seq, checksum, input,
                        output, idempotency_key, correlation_key, created_at, fingerprint, parent_run_id, parent_node,
                        parent_attempt, tags, ord)
             WHERE %s
             ORDER BY r.ord
            ON CONFLICT (tenant, workflow_name, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
            RETURNING run_id""";

    // The transactional start's: its runs' revisions were read in its own transaction (or pinned by a parent).
    private static final String INSERT_RUNS = INSERT.formatted("true");

    // A group of API starts in one statement, so in one round trip that is also its commit (autocommit): the runs, their
    // history and their first queue items, each table's rows from bound arrays. A transactional start takes five
    // round trips (the revision's SELECT, three INSERTs, the COMMIT) and the JTA and Hibernate work around them, all
    // while holding the one start committer that every start waits for.
    // - The runs are the one INSERT's, a run inserted only while the revision its first tick was computed on is still
    //   the workflow's current one (the caller's guess, checked in the snapshot the insert sees).
    // - History and queue rows are written only for runs the first part returned: a start not inserted leaves nothing.
    // - The revision's predicate and the queue's INSERT are their owners' SQL (WorkflowService, QueueRepository).
    static final String START = """
            WITH started AS (
            %s),
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
            INSERT.formatted(WorkflowService.isCurrentRevision("r.tenant", "r.workflow_name", "r.revision")),
            QueueRepository.insertItemsFromArrays("started"));

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
        List<Object[]> history = new ArrayList<>();
        for (NewStart start : starts) {
            String at = SqlTimestamps.text(start.createdAt());
            for (Transition t : start.transitions()) {
                history.add(new Object[] {start.run().runId(), t.seq(), at, t.node(), t.from(), t.to(), t.cause()});
            }
        }
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement insert = connection.prepareStatement(START)) {
                int p = bindRuns(connection, insert, starts.stream().map(NewStart::run).toList(),
                        starts.stream().map(NewStart::createdAt).toList());
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

    /** Binds {@link #INSERT}'s arrays, from the first parameter, for these runs; returns the last parameter bound. */
    private static int bindRuns(Connection connection, PreparedStatement insert, List<NewRun> runs, List<Instant> createdAt)
            throws SQLException {
        int n = runs.size();
        UUID[] runIds = new UUID[n], parents = new UUID[n];
        String[] tenants = new String[n], workflows = new String[n], statuses = new String[n], tiers = new String[n],
                nodeStates = new String[n], checksums = new String[n], inputs = new String[n], outputs = new String[n],
                keys = new String[n], correlations = new String[n], created = new String[n], fingerprints = new String[n],
                parentNodes = new String[n], tags = new String[n];
        Integer[] revisions = new Integer[n], parentAttempts = new Integer[n];
        Long[] lastSeqs = new Long[n];
        for (int i = 0; i < n; i++) {
            NewRun run = runs.get(i);
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
            created[i] = SqlTimestamps.text(createdAt.get(i));
            fingerprints[i] = run.fingerprint();
            parents[i] = run.parent() == null ? null : run.parent().runId();
            parentNodes[i] = run.parent() == null ? null : run.parent().node();
            parentAttempts[i] = run.parent() == null ? null : run.parent().attempt();
            tags[i] = run.tags();
        }
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
        insert.setArray(++p, connection.createArrayOf("text", created));
        insert.setArray(++p, connection.createArrayOf("text", fingerprints));
        insert.setArray(++p, connection.createArrayOf("uuid", parents));
        insert.setArray(++p, connection.createArrayOf("text", parentNodes));
        insert.setArray(++p, connection.createArrayOf("integer", parentAttempts));
        insert.setArray(++p, connection.createArrayOf("text", tags));
        return p;
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
     * Inserts the runs, in the caller's transaction, by {@link #INSERT} (all of them in one execution); returns those
     * inserted: a run whose idempotency key is taken is not. Plain JDBC: on the hot path of every start, Hibernate's
     * native-query handling cost more than the INSERT.
     */
    public Set<UUID> insert(List<NewRun> batch, Instant now) {
        if (batch.isEmpty()) {
            return Set.of();
        }
        List<NewRun> runs = batch.stream().sorted(KEY_ORDER).toList();
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(INSERT_RUNS)) {
                bindRuns(connection, insert, runs, java.util.Collections.nCopies(runs.size(), now));
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

    /** One run's row, for a tick, or null when it is gone. */
    public Row read(UUID runId) {
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement select = connection.prepareStatement(READ)) {
                select.setObject(1, runId);
                try (ResultSet rs = select.executeQuery()) {
                    return rs.next() ? row(rs) : null;
                }
            }
        });
    }

    /**
     * One run's change, through {@link #UPDATE} with arrays of one, so a lost race fails before anything else of the
     * change is written: {@link RunConflictException}, naming the version and seq the winner left.
     */
    public void write(Write write, Instant now) {
        if (!update(List.of(write), now)[0]) {
            long[] current = current(write.runId());
            throw new RunConflictException(write.runId(), write.expectedVersion(), current == null ? null : current[0],
                    current == null ? null : current[1]);
        }
    }

    /**
     * The run's version now, under a share lock until the transaction ends (null when the run is gone): a writer that
     * has updated the row but not committed yet is waited for first.
     */
    public Long versionShared(UUID runId) {
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(VERSION_SHARED)) {
                statement.setObject(1, runId);
                try (ResultSet rs = statement.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : null;
                }
            }
        });
    }

    /**
     * The version and seq the winner left, read on the same connection: a zero-row UPDATE is not an SQL error, so the
     * transaction can still answer before it rolls back.
     */
    private long[] current(UUID runId) {
        return em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(CURRENT)) {
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
                        Row row = row(rs);
                        rows.put(row.runId(), row);
                    }
                }
            }
            return rows;
        });
    }

    private static Row row(ResultSet rs) throws SQLException {
        UUID parent = rs.getObject(13, UUID.class);
        return new Row(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getLong(8), rs.getString(9), rs.getLong(10), rs.getString(11),
                rs.getString(12), parent == null ? null : new ParentLink(parent, rs.getString(14), rs.getInt(15)));
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
        String[] tiers = new String[n];
        Integer[] revisions = new Integer[n];
        String[] nodeStates = new String[n];
        String[] checksums = new String[n];
        Long[] lastSeqs = new Long[n];
        String[] outputs = new String[n];
        for (int i = 0; i < n; i++) {
            Write write = writes.get(i);
            ids[i] = write.runId();
            versions[i] = write.expectedVersion();
            statuses[i] = write.status();
            tiers[i] = write.tier();
            revisions[i] = write.revision();
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
                update.setArray(5, connection.createArrayOf("text", tiers));
                update.setArray(6, connection.createArrayOf("integer", revisions));
                update.setArray(7, connection.createArrayOf("text", nodeStates));
                update.setArray(8, connection.createArrayOf("text", checksums));
                update.setArray(9, connection.createArrayOf("bigint", lastSeqs));
                update.setArray(10, connection.createArrayOf("text", outputs));
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
