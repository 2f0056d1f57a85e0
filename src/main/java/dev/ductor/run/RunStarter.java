package dev.ductor.run;

import dev.ductor.config.JsonCodec;
import dev.ductor.error.IdempotencyKeyReusedException;
import dev.ductor.error.NotFoundException;
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
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Optional;
import java.util.Set;
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

    private final EntityManager em;
    private final WorkflowService workflows;
    private final NodeStatesCodec codec;
    private final RunQueries queries;
    private final JsonCodec json;
    private final Clock clock;
    private final RunHistory history;
    private final RunOutbox outbox;
    private final LocalSteps localSteps;
    private final RunRows rows;

    @Inject
    public RunStarter(EntityManager em, WorkflowService workflows, NodeStatesCodec codec, RunQueries queries,
                      JsonCodec json, Clock clock, RunHistory history, RunOutbox outbox, LocalSteps localSteps,
                      RunRows rows) {
        this.rows = rows;
        this.localSteps = localSteps;
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

    /** One start of a batch: which workflow, for whom, with what. */
    public record Request(String tenant, String workflow, StartRequest request) {
    }

    /** What became of one start of a batch: the run, or why it was refused (nothing of it was written then). */
    public record Result(Started started, RuntimeException refused) {

        public Started orThrow() {
            if (refused != null) {
                throw refused;
            }
            return started;
        }
    }

    /** One start, in the caller's transaction or a new one (the rules' event ingestion starts runs in its own). */
    @Transactional
    public Started start(String tenant, String workflowName, StartRequest request) {
        return startAll(List.of(new Request(tenant, workflowName, request))).get(0).orThrow();
    }

    /**
     * Starts a batch of runs in one transaction, so they share its round trips and its commit (see {@link
     * StartBatcher}); the results are in the order of {@code requests}. A start that is refused (unknown workflow, an
     * idempotency key reused with another body) writes nothing and leaves the others be; a database failure fails
     * them all, since none is committed then.
     */
    @Transactional
    public List<Result> startAll(List<Request> requests) {
        // Microseconds, as PostgreSQL keeps them, so the answer shows what a later read will.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Result[] results = new Result[requests.size()];
        Map<String, Optional<WorkflowService.Pinned>> pinnedByWorkflow = new HashMap<>();
        List<Fresh> fresh = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            Request r = requests.get(i);
            Optional<WorkflowService.Pinned> pinned = pinnedByWorkflow.computeIfAbsent(r.tenant() + '\u001f' + r.workflow(),
                    k -> workflows.currentIfAny(r.tenant(), r.workflow()));
            if (pinned.isEmpty()) {
                results[i] = new Result(null, new NotFoundException("Workflow", r.workflow()));
            } else {
                fresh.add(first(i, r, pinned.get(), now));
            }
        }
        Set<UUID> inserted = insert(fresh, now);
        Map<UUID, List<Transition>> history = new LinkedHashMap<>();
        List<NewQueueItem> items = new ArrayList<>();
        for (Fresh f : fresh) {
            Request r = f.request();
            if (!inserted.contains(f.runId())) {
                results[f.index()] = repeat(r);
                continue;
            }
            List<Transition> transitions = new ArrayList<>();
            transitions.add(new Transition(1, null, null, RunStatus.RUNNING.name(), "started on revision " + f.pinned().revision()));
            transitions.addAll(f.first().transitions());
            history.put(f.runId(), transitions);
            items.addAll(outbox.items(f.runId(), r.tenant(), r.request().tier(), f.first().effects()));
            // The answer is what was just inserted: no need to read the row back.
            Map<String, RunView.NodeView> nodes = new LinkedHashMap<>();
            f.nodes().forEach((id, n) -> nodes.put(id, new RunView.NodeView(n.state().name(), n.attempts(), n.output(), n.error())));
            results[f.index()] = new Result(new Started(true, new RunView(f.runId(), r.workflow(), f.pinned().revision(),
                    f.first().status().name(), r.request().tier(), r.request().idempotencyKey(), r.request().correlationKey(),
                    nodes, r.request().input(), f.first().output(), 0, now, now)), null);
        }
        this.history.append(history, now);
        outbox.dispatch(items, localSteps, now); // eager: the first steps this pod can run, leased to it
        return List.of(results);
    }

    /** A start decided but not yet written: the run's first tick already applied. */
    private record Fresh(int index, Request request, UUID runId, WorkflowService.Pinned pinned, TickResult first, Map<String, NodeState> nodes) {
    }

    private Fresh first(int index, Request r, WorkflowService.Pinned pinned, Instant now) {
        UUID runId = RunIds.next(now);
        Map<String, NodeState> pending = new LinkedHashMap<>();
        pinned.definition().nodes().forEach(n -> pending.put(n.id(), NodeState.pending()));
        // seq 1 is the run's own "started" entry; the first tick continues from there.
        RunSnapshot fresh = new RunSnapshot(runId, pinned.definition(), RunStatus.RUNNING, pending, 1, 0, r.request().input());
        TickResult first = Tick.tick(fresh, List.of(), now);
        Map<String, NodeState> ordered = new LinkedHashMap<>();
        pinned.definition().nodes().forEach(n -> ordered.put(n.id(), first.nodes().get(n.id())));
        return new Fresh(index, r, runId, pinned, first, ordered);
    }

    /** The runs' rows, inserted by {@link RunRows#insert} in one batch; returns those inserted (a taken key is not). */
    private Set<UUID> insert(List<Fresh> fresh, Instant now) {
        List<RunRows.NewRun> runs = new ArrayList<>(fresh.size());
        for (Fresh f : fresh) {
            StartRequest request = f.request().request();
            runs.add(new RunRows.NewRun(f.runId(), f.request().tenant(), f.request().workflow(), f.pinned().revision(),
                    f.first().status().name(), request.tier(), codec.write(f.nodes()), f.first().lastSeq(),
                    RunCommitter.checksum(request.tier(), f.first()), json.write(request.input()), json.write(f.first().output()),
                    request.idempotencyKey(), request.correlationKey(),
                    request.idempotencyKey() == null ? null : request.fingerprint()));
        }
        return rows.insert(runs, now);
    }

    /** A start whose idempotency key was taken: the run it names, or a refusal when the request differs. */
    private Result repeat(Request r) {
        WorkflowRunEntity existing = existing(r.tenant(), r.workflow(), r.request().idempotencyKey());
        if (!sameRequest(existing.runId, r.request().fingerprint())) {
            return new Result(null, new IdempotencyKeyReusedException(r.request().idempotencyKey(),
                    "a start of workflow '" + r.workflow() + "'"));
        }
        return new Result(new Started(false, queries.view(existing)), null);
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
