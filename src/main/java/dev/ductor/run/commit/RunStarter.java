package dev.ductor.run.commit;

import dev.ductor.config.JsonCodec;
import dev.ductor.error.IdempotencyKeyReusedException;
import dev.ductor.error.NotFoundException;
import dev.ductor.config.DuctorConfig;
import dev.ductor.run.LocalDispatch;
import dev.ductor.run.LocalSteps;
import dev.ductor.run.NodeStatesCodec;
import dev.ductor.run.RunHistory;
import dev.ductor.run.RunIds;
import dev.ductor.run.RunOutbox;
import dev.ductor.run.RunRows;
import dev.ductor.run.WorkflowRunEntity;
import dev.ductor.run.core.Effect;
import dev.ductor.run.core.NodeState;
import dev.ductor.run.core.TickLimits;
import dev.ductor.run.core.RunSnapshot;
import dev.ductor.run.core.RunStatus;
import dev.ductor.run.core.RunTags;
import dev.ductor.run.core.Tick;
import dev.ductor.run.core.TickResult;
import dev.ductor.run.core.Transition;
import dev.ductor.run.read.RunQueries;
import dev.ductor.run.read.RunView;
import dev.ductor.workflow.WorkflowService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import dev.ductor.queue.NewQueueItem;
import dev.ductor.queue.QueueItem;
import dev.ductor.queue.QueueRepository;
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
    private final LocalDispatch localDispatch;
    private final RunRows rows;
    private final ChildRuns children;
    private final DuctorConfig config;

    @Inject
    public RunStarter(EntityManager em, WorkflowService workflows, NodeStatesCodec codec, RunQueries queries,
                      JsonCodec json, Clock clock, RunHistory history, RunOutbox outbox, LocalDispatch localDispatch,
                      RunRows rows, ChildRuns children, DuctorConfig config) {
        this.rows = rows;
        this.children = children;
        this.config = config;
        this.localDispatch = localDispatch;
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

    /**
     * One start of a batch: which workflow, for whom, with what; {@code revision} pins one (a child workflow node's
     * {@code revision}), null takes the current one.
     */
    public record Request(String tenant, String workflow, StartRequest request, Integer revision, RunRows.ParentLink parent) {

        public Request(String tenant, String workflow, StartRequest request) {
            this(tenant, workflow, request, null, null);
        }
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
        List<Prepared> fresh = new ArrayList<>();
        List<Integer> indexes = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            Request r = requests.get(i);
            Optional<WorkflowService.Pinned> pinned = r.revision() != null ? workflows.revisionIfAny(r.tenant(), r.workflow(), r.revision())
                    : pinnedByWorkflow.computeIfAbsent(r.tenant() + '\u001f' + r.workflow(),
                            k -> workflows.currentIfAny(r.tenant(), r.workflow()));
            if (pinned.isEmpty()) {
                results[i] = new Result(null, new NotFoundException(r.revision() == null ? "Workflow" : "Workflow revision",
                        r.revision() == null ? r.workflow() : r.workflow() + "@" + r.revision()));
            } else {
                fresh.add(prepare(r, pinned.get(), now));
                indexes.add(i);
            }
        }
        Set<UUID> inserted = rows.insert(fresh.stream().map(Prepared::row).toList(), now);
        List<Prepared> withChildren = new ArrayList<>();
        Map<UUID, List<Transition>> history = new LinkedHashMap<>();
        List<NewQueueItem> items = new ArrayList<>();
        for (int f = 0; f < fresh.size(); f++) {
            Prepared start = fresh.get(f);
            if (!inserted.contains(start.row().runId())) {
                results[indexes.get(f)] = repeat(start.request());
                continue;
            }
            history.put(start.row().runId(), start.transitions());
            items.addAll(start.items());
            if (!start.children().isEmpty()) {
                withChildren.add(start);
            }
            results[indexes.get(f)] = new Result(new Started(true, start.answer()), null);
        }
        this.history.append(history, now);
        outbox.dispatch(items, localDispatch.thisPod(), now); // eager: the first steps this pod can run, leased to it
        for (Prepared start : withChildren) { // a run whose first node is a child workflow: the child starts with it
            children.start(start.row().runId(), start.row().tenant(), start.row().tier(), start.children(), now);
        }
        return List.of(results);
    }

    /**
     * A start decided but not yet written: its run row with the first tick applied, that tick's history and queue
     * items, and the answer to give once it is written. Pure work on the request and the pinned revision, so a caller
     * can do it before the start joins a group ({@link StartBatcher}).
     */
    public record Prepared(Request request, Instant at, RunRows.NewRun row, List<Transition> transitions,
                           List<NewQueueItem> items, RunView answer, List<Effect.StartChild> children) {
    }

    /**
     * {@link #prepare}d on the revision this JVM last read as the workflow's current one; null when it has read none
     * (the transactional way, {@link #startAll}, reads it). Reads nothing from the database.
     */
    public Prepared prepareOnLastSeen(Request r) {
        return workflows.lastSeenCurrent(r.tenant(), r.workflow())
                .map(pinned -> prepare(r, pinned, clock.instant().truncatedTo(ChronoUnit.MICROS)))
                .filter(prepared -> prepared.children().isEmpty()) // a child is started in a transaction: startAll's
                .orElse(null);
    }

    Prepared prepare(Request r, WorkflowService.Pinned pinned, Instant now) {
        UUID runId = RunIds.next(now);
        Map<String, NodeState> pending = new LinkedHashMap<>();
        pinned.definition().nodes().forEach(n -> pending.put(n.id(), NodeState.pending()));
        // seq 1 is the run's own "started" entry; the first tick continues from there.
        RunSnapshot fresh = new RunSnapshot(runId, pinned.definition(), RunStatus.RUNNING, pending, 1, 0, r.request().input(),
                pinned.revision());
        TickResult first = Tick.tick(fresh, List.of(), now, new TickLimits(config.workflow().maxFanOut()));
        Map<String, NodeState> ordered = new LinkedHashMap<>();
        pinned.definition().nodes().forEach(n -> ordered.put(n.id(), first.nodes().get(n.id())));
        StartRequest request = r.request();
        RunRows.NewRun row = new RunRows.NewRun(runId, r.tenant(), r.workflow(), pinned.revision(),
                first.status().name(), request.tier(), codec.write(ordered), first.lastSeq(),
                RunCommitter.checksum(request.tier(), first), json.write(request.input()), json.write(first.output()),
                request.idempotencyKey(), request.correlationKey(),
                request.idempotencyKey() == null ? null : request.fingerprint(), r.parent(), RunTags.json(request.tags()));
        List<Transition> transitions = new ArrayList<>();
        transitions.add(new Transition(1, null, null, RunStatus.RUNNING.name(), "started on revision " + pinned.revision()));
        transitions.addAll(first.transitions());
        // The answer is what is inserted: no need to read the row back.
        Map<String, RunView.NodeView> nodes = new LinkedHashMap<>();
        ordered.forEach((id, n) -> nodes.put(id, RunView.NodeView.of(n)));
        RunView answer = new RunView(runId, r.workflow(), pinned.revision(), first.status().name(), request.tier(),
                request.idempotencyKey(), request.correlationKey(), nodes, request.input(), first.output(), 0, now, now);
        if (request.tags() != null) { // most starts have none: no second view for them on the hot path
            answer = answer.withTags(request.tags());
        }
        return new Prepared(r, now, row, transitions, outbox.items(runId, r.tenant(), request.tier(), first.effects(), now), answer,
                first.effects().stream().filter(Effect.StartChild.class::isInstance).map(Effect.StartChild.class::cast).toList());
    }

    /**
     * Writes prepared starts in one statement that commits by itself ({@link RunRows#start}); must not be called in a
     * transaction. The answer holds, in the order of {@code starts}, each written start's result, or null for one not
     * written because its idempotency key was taken or its revision is no longer current: {@link #startAll} tells
     * which. The steps this pod can run now are leased to it in that statement and handed to its worker once it has
     * committed, as {@link RunOutbox#dispatch} does in a transaction.
     */
    public Result[] startPrepared(List<Prepared> starts) {
        Instant now = clock.instant();
        List<NewQueueItem> items = new ArrayList<>();
        List<RunRows.NewStart> writes = new ArrayList<>(starts.size());
        for (Prepared start : starts) {
            items.addAll(start.items());
            writes.add(new RunRows.NewStart(start.row(), start.at(), start.transitions()));
        }
        LocalSteps local = localDispatch.thisPod();
        RunOutbox.Dispatch dispatch = outbox.split(items, local, now);
        RunRows.StartsWritten written;
        try {
            written = rows.start(writes, dispatch.queued(), dispatch.leased(), now);
        } catch (RuntimeException failed) {
            outbox.handOverUnwritten(dispatch, local); // a statement cut short may have been applied
            throw failed;
        }
        List<QueueItem> handed = new ArrayList<>();
        for (QueueRepository.LeasedItem leased : dispatch.leased()) {
            Long id = written.leasedIds().get(leased.item().taskKey()); // only the inserted runs' items were inserted
            if (id != null) {
                handed.add(leased.inserted(id));
            }
        }
        outbox.handOver(dispatch, local, handed);
        outbox.wakeNow(dispatch.queued().stream().filter(item -> written.runs().contains(item.runId())).toList(), now);
        Result[] results = new Result[starts.size()];
        for (int i = 0; i < starts.size(); i++) {
            if (written.runs().contains(starts.get(i).row().runId())) {
                results[i] = new Result(new Started(true, starts.get(i).answer()), null);
            }
        }
        return results;
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
