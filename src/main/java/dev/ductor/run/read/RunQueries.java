package dev.ductor.run.read;

import dev.ductor.config.JsonCodec;
import dev.ductor.config.SqlTimestamps;
import dev.ductor.error.BadRequestException;
import dev.ductor.error.NotFoundException;
import dev.ductor.queue.DeadLetters;
import dev.ductor.queue.QueueRepository;
import dev.ductor.queue.TaskLeases;
import dev.ductor.run.CorruptRunStateException;
import dev.ductor.run.NodeStatesCodec;
import dev.ductor.run.RunTransitionEntity;
import dev.ductor.run.WorkflowRunEntity;
import dev.ductor.run.core.NodeState;
import dev.ductor.run.core.RunStatus;
import dev.ductor.run.core.StateChecksum;
import dev.ductor.workflow.WorkflowService;
import dev.ductor.workflow.model.WorkflowDefinition;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import org.hibernate.Session;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/** Read side of runs, always scoped to the caller's tenant: another tenant's run simply does not exist. */
@ApplicationScoped
public class RunQueries {

    /**
     * Runs on one page of the list: summaries carry no payloads, but a node each, and a definition may have 500 nodes,
     * so a page is kept to a few megabytes at worst.
     */
    public static final int MAX_LIMIT = 200;
    public static final int DEFAULT_LIMIT = 50;
    /** How many of a tenant's newest runs a search by part of a run id looks through. */
    public static final int RUN_ID_SEARCH_WINDOW = 10_000;
    /** The tenant's newest run ids, read in the order of the (tenant, created_at) index: where a part of an id is looked for. */
    static final String NEWEST_RUN_IDS = """
            SELECT w.run_id FROM eec_workflow_run w WHERE w.tenant = ? ORDER BY w.created_at DESC, w.run_id DESC LIMIT ?""";
    private static final java.util.regex.Pattern WHOLE_RUN_ID =
            java.util.regex.Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final java.util.regex.Pattern RUN_ID_PART = java.util.regex.Pattern.compile("[0-9a-f-]{4,36}");
    /** Transitions on one page of a run's history by default, and at most. */
    public static final int HISTORY_DEFAULT_LIMIT = 500;
    public static final int HISTORY_MAX_LIMIT = 1000;
    /** {@link RunView#integrity()} of a run whose row fails its checksum. */
    public static final String CORRUPT = "corrupt";

    @Inject EntityManager em;
    @Inject WorkflowService workflows;
    @Inject NodeStatesCodec codec;
    @Inject JsonCodec json;
    @Inject DeadLetters deadLetters;
    @Inject TaskLeases leases;

    /** A run that fails verification is refused (a {@code run-state-corrupt} problem), never served as healthy. */
    @Transactional
    public RunView get(String tenant, UUID runId) {
        WorkflowRunEntity run = find(tenant, runId);
        Verified verified = verify(run);
        if (verified.refusal() != null) {
            throw verified.refusal();
        }
        RunView view = view(run, verified).withFamily(run.parentRunId, children(tenant, runId)); // as view(run), verified once
        return deadLetters.of(tenant, runId)
                .map(d -> view.withDeadLetters(new RunView.DeadLetters(d.items(), d.failedDeliveries(), d.lastError(), d.since())))
                .orElse(view);
    }

    /** Whether the run is there at all (of any tenant): a task can outlive its run only if someone deleted the run. */
    public boolean exists(UUID runId) {
        return !em.createNativeQuery("SELECT 1 FROM eec_workflow_run WHERE run_id = ?1").setParameter(1, runId)
                .getResultList().isEmpty();
    }

    /** The child runs a run's {@code workflow} nodes started, oldest first. */
    @SuppressWarnings("unchecked")
    private List<RunView.ChildView> children(String tenant, UUID runId) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT run_id, parent_node, parent_attempt, workflow_name, status FROM eec_workflow_run
                         WHERE parent_run_id = ?1 AND tenant = ?2 ORDER BY created_at, run_id LIMIT 1000""")
                .setParameter(1, runId)
                .setParameter(2, tenant)
                .getResultList();
        return rows.stream().map(r -> new RunView.ChildView((UUID) r[0], (String) r[1], ((Number) r[2]).intValue(),
                (String) r[3], (String) r[4])).toList();
    }

    /** What a command needs to know of a run before it writes to its inbox. */
    public record RunHeader(UUID runId, String tenant, String tier, String status, String workflowName, int workflowRevision,
                            long version) {
    }

    /**
     * The run's header without its state: a signal or cancel only checks the status and queues a wakeup, so it
     * need not load (and dirty-check) a big run's node states, input and output on every call. Plain JDBC: every signal
     * asks, and Hibernate's query machinery (interpretation, parameter binding, result mapping) costs the signal path
     * far more than the primary-key read itself.
     */
    public RunHeader header(String tenant, UUID runId) {
        RunHeader header = em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT tier, status, workflow_name, workflow_revision, db_record_version FROM eec_workflow_run"
                            + " WHERE run_id = ? AND tenant = ?")) {
                select.setObject(1, runId);
                select.setString(2, tenant);
                try (ResultSet rs = select.executeQuery()) {
                    return rs.next() ? new RunHeader(runId, tenant, rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4),
                            rs.getLong(5)) : null;
                }
            }
        });
        if (header == null) {
            throw new NotFoundException("Run", runId.toString());
        }
        return header;
    }

    /** The run's status (RUNNING, SUCCEEDED, ...), or empty when the tenant has no such run. */
    public Optional<String> status(String tenant, UUID runId) {
        try {
            return Optional.of(header(tenant, runId).status());
        } catch (NotFoundException gone) {
            return Optional.empty();
        }
    }

    public WorkflowRunEntity find(String tenant, UUID runId) {
        WorkflowRunEntity run = em.find(WorkflowRunEntity.class, runId);
        if (run == null || !run.tenant.equals(tenant)) {
            throw new NotFoundException("Run", runId.toString());
        }
        return run;
    }

    /** Transitions after seq {@code afterSeq} (0: from the first), at most {@code limit}, in seq order. */
    public record HistoryPage(List<TransitionView> items, boolean more) {
    }

    /**
     * One page of the run's history: the transitions with a seq above {@code afterSeq}, in seq order, at most
     * {@code limit} ({@value #HISTORY_MAX_LIMIT} at most); {@code more} when later ones exist. Keyed on the seq, which
     * never changes and is unique per run (history is append-only), so pages neither skip nor repeat a transition.
     */
    @Transactional
    public HistoryPage history(String tenant, UUID runId, long afterSeq, int limit) {
        if (limit < 1 || limit > HISTORY_MAX_LIMIT) {
            throw new BadRequestException("limit", "limit must be between 1 and " + HISTORY_MAX_LIMIT);
        }
        if (afterSeq < 0) {
            throw new BadRequestException("after", "after must be a seq this history returned (0 or more)");
        }
        find(tenant, runId);
        List<TransitionView> rows = em.createQuery("FROM RunTransitionEntity WHERE runId = :runId AND seq > :after ORDER BY seq",
                        RunTransitionEntity.class)
                .setParameter("runId", runId)
                .setParameter("after", afterSeq)
                .setMaxResults(limit + 1)
                .getResultList().stream()
                .map(t -> new TransitionView(t.seq, t.at, t.nodeId, t.fromState, t.toState, t.cause))
                .toList();
        return rows.size() > limit ? new HistoryPage(rows.subList(0, limit), true) : new HistoryPage(rows, false);
    }

    /**
     * True when task {@code taskId} is, or was, one of the tenant's: still queued or leased, or reported into one of
     * its runs' inboxes. Another tenant's task, or one that never existed, is not there for the caller (404), like
     * another tenant's run; a read, so that an external worker's heartbeat or report cannot tell the difference.
     */
    @Transactional
    public boolean taskBelongsTo(String tenant, long taskId) {
        // The queue first: a report moves the task into the inbox in one commit, so a row gone from the queue by the
        // first read is in the inbox by the second (each statement reads afresh under READ COMMITTED).
        return leases.isTenants(tenant, taskId) || (Boolean) em.createNativeQuery("""
                        SELECT EXISTS (SELECT 1 FROM eec_run_inbox i JOIN eec_workflow_run r ON r.run_id = i.run_id
                                        WHERE i.task_id = ?1 AND r.tenant = ?2)""")
                .setParameter(1, taskId)
                .setParameter(2, tenant)
                .getSingleResult();
    }

    /** The tenant's RUNNING runs with this correlation key, oldest first (an event rule signals them). */
    @Transactional
    @SuppressWarnings("unchecked")
    public List<UUID> runningByCorrelation(String tenant, String correlationKey) {
        return ((List<Object>) em.createNativeQuery("""
                        SELECT run_id FROM eec_workflow_run
                         WHERE tenant = ?1 AND correlation_key = ?2 AND status = 'RUNNING' ORDER BY created_at, run_id""")
                .setParameter(1, tenant)
                .setParameter(2, correlationKey)
                .getResultList()).stream().map(id -> id instanceof UUID uuid ? uuid : UUID.fromString(id.toString())).toList();
    }

    /**
     * Old RUNNING runs (updated before {@code cutoff}, after the key {@code (afterCreated, afterRun)}), for the
     * watchdog, with no queue row of any kind (task, timer, wakeup, or a dead-lettered one an operator owns)
     * and no node waiting for a signal: the WAITING signal nodes are found by joining the node states to the pinned
     * revision, so parked runs are not even read (node states that are not an object, a corrupt row, are read as having
     * no node, so that the run is examined and reported). Runs with pending inbox rows are included: they may need a
     * wakeup. The queue and the revisions are asked by their owners' predicates, in this one statement: parked runs
     * must not even be read, however many there are. Paged by {@code (created_at, run_id)}, which never change, so
     * that the index of RUNNING runs does not hold {@code updated_at} and the run's commits can be HOT updates (V11);
     * a run created after the cutoff cannot have been quiet since it.
     */
    @Transactional
    @SuppressWarnings("unchecked")
    public List<Quiet> quietRuns(Instant cutoff, Instant afterCreated, UUID afterRun, int limit) {
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT r.run_id, r.created_at, r.updated_at FROM eec_workflow_run r
                         WHERE r.status = 'RUNNING' AND r.created_at < :cutoff AND r.updated_at < :cutoff
                           AND (r.created_at, r.run_id) > (:afterCreated, :afterRun)
                           AND %1$s
                           AND NOT EXISTS (
                               SELECT 1 FROM jsonb_each(CASE WHEN jsonb_typeof(r.node_states) = 'object'
                                                             THEN r.node_states ELSE '{}' END) n(node, state)
                                WHERE n.state ->> 'state' = 'WAITING' AND %2$s)
                         ORDER BY r.created_at, r.run_id
                         LIMIT :limit""".formatted(QueueRepository.nothingQueuedFor("r.run_id"),
                        WorkflowService.isSignalNodeOfRun("r", "n.node")))
                .setParameter("cutoff", cutoff)
                .setParameter("afterCreated", afterCreated)
                .setParameter("afterRun", afterRun)
                .setParameter("limit", limit)
                .getResultList();
        return rows.stream().map(row -> new Quiet((UUID) row[0], SqlTimestamps.toInstant(row[1]),
                SqlTimestamps.toInstant(row[2]))).toList();
    }

    /** A run that has not committed for a while: when it was created (its page key) and when it last committed. */
    public record Quiet(UUID runId, Instant createdAt, Instant updatedAt) {
    }

    /** Newest first, keyset-paginated on (created_at, run_id) so deep pages cost what the first does. */
    @Transactional
    public RunPage list(String tenant, String workflow, String status, Integer limit, String cursor) {
        return list(tenant, workflow, status, null, RunTagFilter.NONE, null, limit, cursor);
    }

    /**
     * As above; {@code idempotencyKey} finds the run(s) a start with that key made (one per workflow), {@code tags} the
     * runs carrying all of those tags (through their GIN index, {@link RunTagFilter}). Summaries
     * ({@link RunSummary}): the statement reads the header columns and, of {@code node_states}, each node's state and
     * attempts, extracted in PostgreSQL; {@code input}, {@code output} and the nodes' outputs never leave the database.
     * Plain JDBC, like {@link #header}: no entity is built (nor dirty-checked) for a row the caller sees in part.
     * {@code runId} is a run id or any part of one (4 to 36 of its hex
     * digits and dashes, e.g. the last 12 digits the console shows). A whole id is one primary-key lookup. A part cannot
     * use an index (a UUIDv7's first digits are its creation time, shared by every run of the same moment, so a part
     * worth typing is from the middle or the end), so it is matched among the tenant's newest
     * {@value #RUN_ID_SEARCH_WINDOW} runs only, read through the (tenant, created_at) index: the cost stays bounded
     * however many runs the tenant has.
     */
    @Transactional
    public RunPage list(String tenant, String workflow, String status, String idempotencyKey, RunTagFilter tags,
                        String runId, Integer limit, String cursor) {
        int size = limit == null ? DEFAULT_LIMIT : limit;
        if (size < 1 || size > MAX_LIMIT) {
            throw new BadRequestException("limit", "limit must be between 1 and " + MAX_LIMIT);
        }
        if (status != null) {
            try {
                RunStatus.valueOf(status);
            } catch (IllegalArgumentException e) {
                throw new BadRequestException("status", "status must be one of RUNNING, SUCCEEDED, FAILED, CANCELLED");
            }
        }
        Cursor after = cursor == null ? null : Cursor.decode(cursor);
        Statement statement = listStatement(tenant, workflow, status, idempotencyKey, tags, runId, after, size + 1);
        List<Object> parameters = statement.parameters();
        List<RunSummary> rows = em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement select = connection.prepareStatement(statement.sql())) {
                for (int i = 0; i < parameters.size(); i++) {
                    select.setObject(i + 1, parameters.get(i));
                }
                List<RunSummary> read = new ArrayList<>();
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        read.add(summary(tenant, rs));
                    }
                }
                return read;
            }
        });
        String next = null;
        if (rows.size() > size) {
            rows = rows.subList(0, size);
            RunSummary last = rows.get(size - 1);
            next = new Cursor(last.createdAt(), last.runId()).encode();
        }
        return new RunPage(List.copyOf(rows), next);
    }

    /** A statement and its JDBC parameters, in order. */
    record Statement(String sql, List<Object> parameters) {
    }

    /** The run list's SELECT for these filters, at most {@code rows} rows: built apart so its plan can be checked. */
    static Statement listStatement(String tenant, String workflow, String status, String idempotencyKey, RunTagFilter tags,
                                   String runId, Cursor after, int rows) {
        StringBuilder sql = new StringBuilder("""
                SELECT r.run_id, r.workflow_name, r.workflow_revision, r.status, r.tier, r.idempotency_key, r.correlation_key,
                       r.db_record_version, r.created_at, r.updated_at,
                       (SELECT jsonb_object_agg(n.key, jsonb_build_object('state', n.value -> 'state', 'attempts', n.value -> 'attempts'))
                          FROM jsonb_each(CASE WHEN jsonb_typeof(r.node_states) = 'object' THEN r.node_states ELSE '{}' END) n
                         WHERE jsonb_typeof(n.value) = 'object')::text,
                       CAST(r.tags AS text)
                  FROM eec_workflow_run r
                 WHERE r.tenant = ?""");
        List<Object> parameters = new ArrayList<>(List.of(tenant));
        if (workflow != null) {
            sql.append(" AND r.workflow_name = ?");
            parameters.add(workflow);
        }
        if (status != null) {
            sql.append(" AND r.status = ?");
            parameters.add(status);
        }
        if (idempotencyKey != null) {
            sql.append(" AND r.idempotency_key = ?");
            parameters.add(idempotencyKey);
        }
        if (!tags.isEmpty()) {
            sql.append(" AND ").append(tags.predicate("r", "?"));
            parameters.add(tags.containment());
        }
        if (runId != null) {
            String part = runIdPart(runId);
            if (part.length() == 36) {
                sql.append(" AND r.run_id = ?");
                parameters.add(UUID.fromString(part));
            } else {
                sql.append(" AND r.run_id IN (").append(NEWEST_RUN_IDS).append(") AND CAST(r.run_id AS text) LIKE ?");
                parameters.addAll(List.of(tenant, RUN_ID_SEARCH_WINDOW, "%" + part + "%")); // hex and dashes: no wildcard inside
            }
        }
        if (after != null) {
            sql.append(" AND (r.created_at < ? OR (r.created_at = ? AND r.run_id < ?))");
            OffsetDateTime createdAt = after.createdAt().atOffset(ZoneOffset.UTC);
            parameters.addAll(List.of(createdAt, createdAt, after.runId()));
        }
        sql.append(" ORDER BY r.created_at DESC, r.run_id DESC LIMIT ?");
        parameters.add(rows);
        return new Statement(sql.toString(), parameters);
    }

    /** The lower-cased part of a run id, or 400: hex digits and dashes only, 4 to 36 of them, a whole id well-formed. */
    static String runIdPart(String runId) {
        String part = runId.strip().toLowerCase(java.util.Locale.ROOT);
        if (!RUN_ID_PART.matcher(part).matches() || (part.length() == 36 && !WHOLE_RUN_ID.matcher(part).matches())) {
            throw new BadRequestException("runId", "runId must be a run id or a part of one: 4 to 36 hex digits and dashes, not '"
                    + runId + "'");
        }
        return part;
    }

    private RunSummary summary(String tenant, ResultSet rs) throws java.sql.SQLException {
        String workflow = rs.getString(2);
        int revision = rs.getInt(3);
        return new RunSummary(rs.getObject(1, UUID.class), workflow, revision, rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), tags(rs.getString(12)), nodeSummaries(tenant, workflow, revision, rs.getString(11)), rs.getLong(8),
                rs.getObject(9, OffsetDateTime.class).toInstant(), rs.getObject(10, OffsetDateTime.class).toInstant());
    }

    /** A row's {@code tags} column as a map sorted by key; null for a run without tags (left out of the JSON). */
    private Map<String, String> tags(String stored) {
        if (stored == null) {
            return null;
        }
        Map<String, String> tags = new TreeMap<>();
        json.tree(stored).properties().forEach(tag -> tags.put(tag.getKey(), tag.getValue().asText()));
        return tags;
    }

    /**
     * The nodes' states and attempts, in the order of the run's revision (jsonb keeps none); a node the revision does not
     * name, or a revision that cannot be read, keeps the stored order: a list shows what is there, a GET judges it.
     */
    private Map<String, RunSummary.NodeSummary> nodeSummaries(String tenant, String workflow, int revision, String stored) {
        Map<String, RunSummary.NodeSummary> byId = new LinkedHashMap<>();
        if (stored == null) {
            return byId;
        }
        json.tree(stored).properties().forEach(node -> byId.put(node.getKey(),
                new RunSummary.NodeSummary(node.getValue().path("state").asText(null), node.getValue().path("attempts").asInt())));
        List<String> order;
        try {
            order = workflows.revision(tenant, workflow, revision).nodes().stream().map(n -> n.id()).toList();
        } catch (RuntimeException unreadable) {
            return byId;
        }
        Map<String, RunSummary.NodeSummary> ordered = new LinkedHashMap<>();
        order.forEach(id -> {
            RunSummary.NodeSummary node = byId.remove(id);
            if (node != null) {
                ordered.put(id, node);
            }
        });
        ordered.putAll(byId);
        return ordered;
    }

    /** How many of the tenant's runs are RUNNING. */
    @Transactional
    public long running(String tenant) {
        return em.createQuery("SELECT count(r) FROM WorkflowRunEntity r WHERE r.tenant = :tenant AND r.status = 'RUNNING'", Long.class)
                .setParameter("tenant", tenant).getSingleResult();
    }

    public JsonCodec json() {
        return json;
    }

    /**
     * The run as the API shows it, checksum verified like a tick's load: a row that fails is marked
     * {@code integrity: "corrupt"} (its stored values shown as they are, unverified), so a list still serves the
     * rest of its page while no reader can take that run for a healthy one.
     */
    public RunView view(WorkflowRunEntity run) {
        return view(run, verify(run)).withFamily(run.parentRunId, children(run.tenant, run.runId));
    }

    /**
     * As {@link #view(WorkflowRunEntity)}, for the tenant's run by id. A command that writes the run answers with this,
     * after its write: the row is written by statement, never through the entity, so an entity read before the write
     * would still hold the old version.
     */
    public RunView view(String tenant, UUID runId) {
        return view(find(tenant, runId));
    }

    /** A row's node states as read, and why it fails verification (null: it passes). */
    private record Verified(Map<String, NodeState> nodes, CorruptRunStateException refusal) {
    }

    private Verified verify(WorkflowRunEntity run) {
        WorkflowDefinition definition = workflows.revision(run.tenant, run.workflowName, run.workflowRevision);
        Map<String, NodeState> nodes;
        try {
            nodes = codec.read(run.nodeStates, definition);
        } catch (RuntimeException unreadable) {
            return new Verified(Map.of(), new CorruptRunStateException(run.runId, unreadable));
        }
        StateChecksum.Covered covered = new StateChecksum.Covered(run.status, run.lastTransitionSeq, run.tier,
                json.tree(run.output), nodes);
        return new Verified(nodes, StateChecksum.matches(run.stateChecksum, covered) ? null
                : new CorruptRunStateException(run.runId, run.stateChecksum, StateChecksum.of(covered)));
    }

    private RunView view(WorkflowRunEntity run, Verified verified) {
        Map<String, RunView.NodeView> nodes = new LinkedHashMap<>();
        verified.nodes().forEach((id, n) -> nodes.put(id, RunView.NodeView.of(n)));
        return new RunView(run.runId, run.workflowName, run.workflowRevision, run.status, run.tier, run.idempotencyKey,
                run.correlationKey, nodes, json.tree(run.input), json.tree(run.output), run.dbRecordVersion, run.createdAt,
                run.updatedAt, verified.refusal() == null ? null : CORRUPT).withTags(tags(run.tags));
    }

    /** An opaque position: base64url of {@code <epoch micros>:<run id>}. */
    record Cursor(Instant createdAt, UUID runId) {

        String encode() {
            long micros = ChronoUnit.MICROS.between(Instant.EPOCH, createdAt);
            return Base64.getUrlEncoder().withoutPadding().encodeToString((micros + ":" + runId).getBytes(StandardCharsets.UTF_8));
        }

        static Cursor decode(String cursor) {
            try {
                String[] parts = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8).split(":", 2);
                return new Cursor(Instant.EPOCH.plus(Long.parseLong(parts[0]), ChronoUnit.MICROS), UUID.fromString(parts[1]));
            } catch (RuntimeException e) {
                throw new BadRequestException("cursor", "cursor is not one this API returned");
            }
        }
    }
}
