package dev.ductor.run;

import dev.ductor.config.JsonCodec;
import dev.ductor.error.IdempotencyKeyReusedException;
import dev.ductor.run.core.NodeState;
import dev.ductor.run.core.RunSnapshot;
import dev.ductor.run.core.RunStatus;
import dev.ductor.run.core.Tick;
import dev.ductor.run.core.TickResult;
import dev.ductor.run.core.Transition;
import dev.ductor.workflow.WorkflowService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueRepository;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import org.hibernate.Session;

import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Creates a run with its first tick already applied (the first nodes dispatched in the same transaction),
 * pinned to the workflow's current revision. A repeated idempotency key returns the existing run: the
 * unique index decides, through {@code ON CONFLICT DO NOTHING}, so two concurrent starts cannot both win; a
 * repeat whose body differs from the first one's (its request fingerprint) is refused instead.
 */
@ApplicationScoped
public class RunStarter {

    private static final String INSERT = """
            INSERT INTO eec_workflow_run (run_id, tenant, workflow_name, workflow_revision, status, tier, node_states,
                                          last_transition_seq, state_checksum, db_record_version, input, output,
                                          idempotency_key, correlation_key, created_at, updated_at, request_fingerprint)
            VALUES (?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?, ?, 0, CAST(? AS jsonb), CAST(? AS jsonb), ?, ?, ?, ?, ?)
            ON CONFLICT (tenant, workflow_name, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING""";

    private final EntityManager em;
    private final WorkflowService workflows;
    private final NodeStatesCodec codec;
    private final RunQueries queries;
    private final JsonCodec json;
    private final Clock clock;
    private final RunHistory history;
    private final RunOutbox outbox;
    private final QueueRepository queue;
    private final LocalSteps localSteps;
    private final TransactionSynchronizationRegistry transactions;

    @Inject
    public RunStarter(EntityManager em, WorkflowService workflows, NodeStatesCodec codec, RunQueries queries,
                      JsonCodec json, Clock clock, RunHistory history, RunOutbox outbox, QueueRepository queue,
                      LocalSteps localSteps, TransactionSynchronizationRegistry transactions) {
        this.queue = queue;
        this.localSteps = localSteps;
        this.transactions = transactions;
        this.history = history;
        this.outbox = outbox;
        this.em = em;
        this.workflows = workflows;
        this.codec = codec;
        this.queries = queries;
        this.json = json;
        this.clock = clock;
    }

    public record Started(boolean created, RunView run) {
    }

    @Transactional
    public Started start(String tenant, String workflowName, StartRequest request) {
        WorkflowService.Pinned pinned = workflows.current(tenant, workflowName);
        // Microseconds, as PostgreSQL keeps them, so the answer shows what a later read will.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        UUID runId = UUID.randomUUID();
        Map<String, NodeState> pending = new LinkedHashMap<>();
        pinned.definition().nodes().forEach(n -> pending.put(n.id(), NodeState.pending()));
        // seq 1 is the run's own "started" entry; the first tick continues from there.
        RunSnapshot fresh = new RunSnapshot(runId, pinned.definition(), RunStatus.RUNNING, pending, 1, 0, request.input());
        TickResult first = Tick.tick(fresh, List.of(), now);
        Map<String, NodeState> ordered = new LinkedHashMap<>();
        pinned.definition().nodes().forEach(n -> ordered.put(n.id(), first.nodes().get(n.id())));
        String nodeStates = codec.write(ordered);
        String checksum = RunCommitter.checksum(request.tier(), first);
        String input = json.write(request.input());
        String output = json.write(first.output());
        // Plain JDBC: on the hot path of every start, Hibernate's native-query handling cost more than the INSERT.
        int inserted = em.unwrap(Session.class).doReturningWork(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
                OffsetDateTime at = now.atOffset(ZoneOffset.UTC);
                insert.setObject(1, runId);
                insert.setString(2, tenant);
                insert.setString(3, workflowName);
                insert.setInt(4, pinned.revision());
                insert.setString(5, first.status().name());
                insert.setString(6, request.tier());
                insert.setString(7, nodeStates);
                insert.setLong(8, first.lastSeq());
                insert.setString(9, checksum);
                insert.setString(10, input);
                insert.setString(11, output);
                insert.setString(12, request.idempotencyKey());
                insert.setString(13, request.correlationKey());
                insert.setObject(14, at);
                insert.setObject(15, at);
                insert.setString(16, request.idempotencyKey() == null ? null : request.fingerprint());
                return insert.executeUpdate();
            }
        });
        if (inserted == 0) {
            WorkflowRunEntity existing = existing(tenant, workflowName, request.idempotencyKey());
            if (!sameRequest(existing.runId, request.fingerprint())) {
                throw new IdempotencyKeyReusedException(request.idempotencyKey(), "a start of workflow '" + workflowName + "'");
            }
            return new Started(false, queries.view(existing));
        }
        List<Transition> history = new ArrayList<>();
        history.add(new Transition(1, null, null, RunStatus.RUNNING.name(), "started on revision " + pinned.revision()));
        history.addAll(first.transitions());
        this.history.append(runId, history, now);
        dispatch(outbox.items(runId, tenant, request.tier(), first.effects()), now);
        // The answer is what was just inserted: no need to read the row back.
        Map<String, RunView.NodeView> nodes = new LinkedHashMap<>();
        ordered.forEach((id, n) -> nodes.put(id, new RunView.NodeView(n.state().name(), n.attempts(), n.output(), n.error())));
        return new Started(true, new RunView(runId, workflowName, pinned.revision(), first.status().name(), request.tier(),
                request.idempotencyKey(), request.correlationKey(), nodes, request.input(), first.output(), 0, now, now));
    }

    /**
     * Queues the first steps, leasing those this pod can run now to it (eager dispatch, as a group commit does for a
     * chain's next steps): they start once this transaction has committed, without a claim. A rollback hands the
     * reserved slots back and nothing runs.
     */
    private void dispatch(List<NewQueueItem> items, Instant now) {
        GroupCommit.Eager eager = localSteps.reserveFor(items, now);
        List<List<NewQueueItem>> split = eager.split(items, now);
        List<QueueItem> leased;
        try {
            leased = queue.enqueueLeased(split.get(0), eager.owner(), eager.lease(), now);
        } catch (RuntimeException failed) {
            localSteps.handOver(eager, List.of());
            throw failed;
        }
        if (eager.slots() > 0) {
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                }

                @Override
                public void afterCompletion(int status) {
                    localSteps.handOver(eager, status == Status.STATUS_COMMITTED ? leased : List.of());
                }
            });
        }
        outbox.write(split.get(1), now);
    }

    /** A run started before fingerprints were stored has none: its key can only be answered as a repeat. */
    private boolean sameRequest(UUID runId, String fingerprint) {
        Object stored = em.createNativeQuery("SELECT request_fingerprint FROM eec_workflow_run WHERE run_id = ?1")
                .setParameter(1, runId)
                .getSingleResult();
        return stored == null || stored.equals(fingerprint);
    }

    private WorkflowRunEntity existing(String tenant, String workflowName, String idempotencyKey) {
        return em.createQuery("FROM WorkflowRunEntity WHERE tenant = :tenant AND workflowName = :workflow"
                        + " AND idempotencyKey = :key", WorkflowRunEntity.class)
                .setParameter("tenant", tenant)
                .setParameter("workflow", workflowName)
                .setParameter("key", idempotencyKey)
                .getSingleResult();
    }
}
